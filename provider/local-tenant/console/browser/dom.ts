/**
 * The console page's few helpers on the document: an element of the page by its id, a new
 * element with its text, and a status line's words.
 */

/** The element `#id`, of the type the page gives it; a missing one is a bug of the page. */
export function byId<T extends Element>(id: string, type: abstract new () => T): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) throw new Error(`the console's page has no ${type.name} #${id}`);
  return node;
}

/** An element with attributes and, given, its text (as text: never parsed as markup). */
export function el(
  tag: string,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElement {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Says `text` in a status line, as a success or a failure. */
export function say(node: HTMLElement, text: string, ok: boolean): void {
  node.textContent = text;
  node.className = ok ? "done" : "error";
}
