/**
 * The one way the package writes a line of its own on stderr (the limiter's reports, the notices
 * of retries, the providers' warnings) while a command may be drawing a progress bar there: the
 * bar is lifted, the line written, the bar drawn again below it. A leaf module, so that the API
 * layer and the providers can write lines without depending on the commands' progress
 * (`progress.ts`), which holds the bar and hands it here while it is drawn.
 *
 * @module
 */

/** A bar drawn on the terminal: how to lift it and how to draw it again. */
interface DrawnBar {
  readonly clear: () => void;
  readonly redraw: () => void;
}

/** The bar drawn on the terminal now, if any: {@link writeLine} lifts it for another line. */
let drawnBar: DrawnBar | undefined;

/** Writes one line on stderr without breaking a progress bar drawn there. */
export function writeLine(line: string): void {
  drawnBar?.clear();
  process.stderr.write(`${line}\n`);
  drawnBar?.redraw();
}

/**
 * Hands {@link writeLine} the bar drawn from now on, or none (`undefined`) once it is gone; one
 * bar at a time, as one command draws one.
 */
export function drawingBar(bar: DrawnBar | undefined): void {
  drawnBar = bar;
}
