import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the scripted server does with one request. */
export type Step =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | "drop"
  | "hang";

/** A request as the scripted server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/**
 * An HTTP server on a loopback port that answers each request with the next scripted step (the
 * last step repeats). For client tests that need one exact failure at one exact moment, which the
 * local tenant API's random fault injection cannot promise.
 */
export interface ScriptedServer {
  readonly url: string;
  readonly seen: SeenRequest[];
  stop(): Promise<void>;
}

export async function startScriptedServer(
  route: (request: SeenRequest, index: number) => Step,
): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(request);
      const step = route(request, seen.length - 1);
      if (step === "drop") {
        req.socket.destroy();
        return;
      }
      if (step === "hang") return;
      const body = step.body === undefined ? "" : JSON.stringify(step.body);
      res.writeHead(step.status, {
        ...(body ? { "content-type": "application/json" } : {}),
        ...step.headers,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers each request with the step at its index; the last step repeats. */
export function inOrder(...steps: Step[]): (request: SeenRequest, index: number) => Step {
  return (_request, index) => steps[Math.min(index, steps.length - 1)] as Step;
}
