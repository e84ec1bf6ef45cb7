/**
 * The local tenant's guard of its control and console routes (docs/design/local-tenant.md, "Who may use
 * it") against every spelling of their paths: it decides on the route the router matched, and
 * refuses before routing a target that is not a plain path, so that no escape, dot segment, double
 * slash or absolute-form target reaches a control route around the checks of its `Host`, its
 * `Origin` and its caller's address.
 */

import { connect } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestTargetProblem } from "../provider/local-tenant/context.js";
import { DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { startTenantApi } from "../provider/local-tenant/server.js";
import type { TenantApi } from "../provider/local-tenant/tenant-api.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const REBOUND = "rebound.attacker.example";
const ATTACKER_ORIGIN = "https://attacker.example";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function started(options: Parameters<typeof startTenantApi>[0] = {}): Promise<TenantApi> {
  const api = await startTenantApi(options);
  stops.push(() => api.stop());
  return api;
}

/** An answer read off the socket: its status and its body's text. */
interface RawAnswer {
  status: number;
  body: string;
}

/**
 * Writes `head` (and `body`) to a new connection to `port` as they are, so that a target Node's
 * client would normalise or refuse (absolute-form, escapes, dot segments) reaches the server as
 * written; reads the answer until the server closes the connection (the request says `close`).
 * Every exchange is bounded by the socket's timeout.
 */
function exchange(port: number, head: string, body = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error(`no answer in 15 s to ${head}`)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    // Written, not ended: a half-closed connection may be closed before a slower answer is sent.
    socket.write(
      `${head}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

/** Every spelling of a control path tried: escapes, dot segments, slashes, case, length. */
function spellingsOf(path: string, port: number): string[] {
  const rest = path.slice("/__tenant-api".length);
  return [
    `/%5F_tenant-api${rest}`,
    `/%5f_tenant-api${rest}`,
    `/%5F%5F%74enant-api${rest}`,
    `/__tenant-api${rest.replace(/^\/(.)/, (_all, first: string) => `/%${first.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    `/__tenant-api${rest.replace(/^\/(.)/, (_all, first: string) => `/%${first.charCodeAt(0).toString(16)}`)}`,
    `/__tenant-api%2F${rest.slice(1)}`,
    `/__tenant-api%2f${rest.slice(1)}`,
    `/%2e/__tenant-api${rest}`,
    `/%2E%2E/__tenant-api${rest}`,
    `/x/../__tenant-api${rest}`,
    `/./__tenant-api${rest}`,
    `/__tenant-api/.${rest}`,
    `/__tenant-api/x/..${rest}`,
    `//__tenant-api${rest}`,
    `/__tenant-api/${rest}`,
    `/__tenant-api${rest}/`,
    `/__tenant-api${rest}//`,
    `/__tenant-api${rest}?${"q".repeat(3000)}`,
    `/__tenant-api${rest}/${"x".repeat(6000)}`,
    `/__tenant-api\\${rest.slice(1)}`,
    `/__TENANT-API${rest}`,
    `http://${REBOUND}/__tenant-api${rest}`,
    `http://127.0.0.1:${port}/__tenant-api${rest}`,
    `HTTP://127.0.0.1:${port}/__tenant-api${rest}`,
    `http://localhost:${port}/%5F_tenant-api${rest}`,
    path,
  ];
}

describe("the control routes' guard against a rebound name", () => {
  it("refuses every spelling of the state's path sent with a rebound Host, and shows no secret", async () => {
    const api = await started();
    const secret = api.clientSecret;
    const passed: string[] = [];
    for (const target of spellingsOf("/__tenant-api/state", api.port)) {
      const answer = await exchange(api.port, `GET ${target} HTTP/1.1\r\nHost: ${REBOUND}`);
      if (answer.status < 400 || answer.body.includes(secret))
        passed.push(`${target} ${answer.status}`);
    }
    expect(passed).toEqual([]);
  });

  it("refuses every spelling of a console read sent with a rebound Host", async () => {
    const api = await started();
    const passed: string[] = [];
    for (const target of spellingsOf(`/__tenant-api/console/clients/${PORTAL}`, api.port)) {
      const answer = await exchange(api.port, `GET ${target} HTTP/1.1\r\nHost: ${REBOUND}`);
      if (answer.status < 400) passed.push(`${target} ${answer.status}`);
    }
    expect(passed).toEqual([]);
  });

  it("refuses the absolute-form target of the issue whatever its Host says", async () => {
    const api = await started();
    for (const host of [REBOUND, `127.0.0.1:${api.port}`]) {
      const answer = await exchange(
        api.port,
        `GET http://${REBOUND}/__tenant-api/state HTTP/1.1\r\nHost: ${host}`,
      );
      expect({ host, status: answer.status }).toEqual({ host, status: 400 });
      expect(answer.body).not.toContain(api.clientSecret);
    }
  });
});

describe("the control routes' guard against another site's page", () => {
  it("sets no fault for a form posted from another origin to any spelling of the faults' path", async () => {
    const api = await started();
    const passed: string[] = [];
    for (const target of spellingsOf("/__tenant-api/faults", api.port)) {
      const answer = await exchange(
        api.port,
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nOrigin: ${ATTACKER_ORIGIN}\r\n` +
          "Content-Type: application/x-www-form-urlencoded",
        "spec=error%3D1",
      );
      if (answer.status < 400) passed.push(`${target} ${answer.status}`);
    }
    expect(passed).toEqual([]);
    expect(await (await fetch(`${api.domain}/__tenant-api/faults`)).json()).toMatchObject({
      error: 0,
    });
  });

  it("resets nothing for a post from another origin to any spelling of the reset's path", async () => {
    const api = await started();
    const edited = { ...api.store.getClient(PORTAL), description: "kept" };
    api.store.putClient(edited as never);
    const passed: string[] = [];
    for (const target of spellingsOf("/__tenant-api/reset", api.port)) {
      const answer = await exchange(
        api.port,
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nOrigin: ${ATTACKER_ORIGIN}`,
      );
      if (answer.status < 400) passed.push(`${target} ${answer.status}`);
    }
    expect(passed).toEqual([]);
    expect(api.store.getClient(PORTAL)?.description).toBe("kept");
  });
});

describe("the control routes spelled plainly", () => {
  it("still answers the state, the stats and the console to a plain path from loopback", async () => {
    const api = await started();
    const host = `Host: 127.0.0.1:${api.port}`;
    for (const path of ["/__tenant-api/state", "/__tenant-api/stats", "/__tenant-api/console"]) {
      const answer = await exchange(api.port, `GET ${path} HTTP/1.1\r\n${host}`);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
    }
    const list = await exchange(
      api.port,
      `GET /__tenant-api/console/clients?q=${encodeURIComponent("Generated é%")} HTTP/1.1\r\n${host}`,
    );
    expect(list.status).toBe(200);
  });

  it("answers an escaped spelling of a control path from loopback with a 400 in the API's shape", async () => {
    const api = await started();
    const answer = await exchange(
      api.port,
      `GET /%5F_tenant-api/state HTTP/1.1\r\nHost: 127.0.0.1:${api.port}`,
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message:
        "Path validation error: a path of the local tenant's control routes must be written plainly: their prefix without escapes, no empty or dot segments, no backslashes",
      errorCode: "invalid_uri",
    });
  });

  it("still shows the console a client whose id its page escapes", async () => {
    const id = "Acme\u2026 client";
    const api = await started({
      seed: { clients: [{ client_id: id, name: "Acme", app_type: "spa" }] },
    });
    const answer = await exchange(
      api.port,
      `GET /__tenant-api/console/clients/${encodeURIComponent(id)} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}`,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ client: { client_id: id } });
  });

  it("still serves the management API to an escaped id, as the platform does", async () => {
    const api = await started();
    const token = await api.mintToken({ scopes: ["read:clients"] });
    const escaped = PORTAL.replace(
      /^(.)/,
      (_all, first: string) => `%${first.charCodeAt(0).toString(16)}`,
    );
    const answer = await exchange(
      api.port,
      `GET /api/v2/clients/${escaped} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}\r\nAuthorization: Bearer ${token}`,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ client_id: PORTAL });
  });
});

describe("malformed management paths", () => {
  it("answers each with a 4xx in the API's shape and writes no stack trace on stderr", async () => {
    const api = await started();
    const token = await api.mintToken({ scopes: api.scopes });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const answers: { target: string; status: number; shape: string[] }[] = [];
    try {
      for (const target of [
        "HTTP://localhost/api/v2/clients",
        `HTTP://127.0.0.1:${api.port}/api/v2/clients/a%2fb`,
        `http://127.0.0.1:${api.port}/api/v2/event-streams/%2e`,
        "//api/v2/clients",
        "/api/v2/clients/%",
        "/api/v2/clients/%E0%A4%A",
        "/api/v2/clients/%C0%AF",
        "/api/v2/users/%ZZ",
        `/api/v2/clients/${"x".repeat(1001)}`,
        "/api/v2/event-streams/%2F",
        "/oauth/token%",
        "/.well-known/%",
      ]) {
        for (const authorization of ["", `\r\nAuthorization: Bearer ${token}`]) {
          const answer = await exchange(
            api.port,
            `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${api.port}${authorization}`,
          );
          const body = JSON.parse(answer.body) as Record<string, unknown>;
          answers.push({ target, status: answer.status, shape: Object.keys(body).sort() });
        }
      }
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
    for (const answer of answers) {
      expect(answer.status >= 400 && answer.status < 500, `${answer.target} ${answer.status}`).toBe(
        true,
      );
    }
    // The API's error shape, or the OAuth shape on the token route.
    const shapes = ["error,errorCode,message,statusCode", "error,error_description"];
    for (const answer of answers) expect(shapes).toContain(answer.shape.join(","));
  });
});

describe("requestTargetProblem", () => {
  it("takes a plain path, a query, an escape past the control prefixes, and escapes outside them", () => {
    for (const target of [
      "/api/v2/clients?fields=name&q=%25",
      "/api/v2/clients/a%2Fb",
      "/oauth/token",
      "/__tenant-api/state",
      "/__tenant-api/console/clients?q=%C3%A9",
      "/__tenant-api/stats/",
      "/__tenant-api/console/clients/Acme%E2%80%A6",
      "/__tenant-api/%73tate",
      "/api/v2/clients/__tenant-api",
    ]) {
      expect({ target, problem: requestTargetProblem(target) }).toEqual({
        target,
        problem: undefined,
      });
    }
  });

  it("refuses a target that is not a path: absolute-form, authority-form, asterisk-form, //", () => {
    for (const target of [
      "http://127.0.0.1:4000/__tenant-api/state",
      "https://example.com/api/v2/clients",
      "127.0.0.1:4000",
      "*",
      "//__tenant-api/state",
      "",
    ]) {
      expect(requestTargetProblem(target)).toBe(
        "Path validation error: the request target must be a path beginning with a single /",
      );
    }
  });

  it("refuses an escaped prefix, a dot or empty segment or a backslash on the control routes' paths", () => {
    for (const target of [
      "/%5F_tenant-api/state",
      "/__tenant-api%2Fstate",
      "/__tenant-api/%63onsole/clients",
      "/__tenant-api/CONSOLE/clients",
      "/__tenant-api/console/clients/%2e%2e",
      "/__tenant-api/console/clients/a%2F%2Fb",
      "/x/../__tenant-api/state",
      "/%2e%2e/__tenant-api/state",
      "/__tenant-api/./state",
      "/__tenant-api//state",
      "/__tenant-api\\state",
      "/api/v2/../../__tenant-api/state",
      "/__Tenant-API/%2e",
    ]) {
      expect({ target, problem: requestTargetProblem(target) }).toEqual({
        target,
        problem:
          "Path validation error: a path of the local tenant's control routes must be written plainly: their prefix without escapes, no empty or dot segments, no backslashes",
      });
    }
  });
});
