/**
 * The platform's own recorded traffic (test/fixtures/recorded/terraform-provider-auth0/, its
 * README says what it is) replayed against the local tenant: every recorded write on the routes
 * the local tenant serves, each against a tenant holding the client (or stream) as the platform
 * answered it just before in the same recording, and the answer compared with the platform's on
 * what matters (docs/design/local-tenant.md, "Conformance with the recorded platform").
 *
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isPlainObject } from "../../provider/json.js";
import type { WireClient } from "../../provider/local-tenant/clients.js";
import { withResponseDefaults } from "../../provider/local-tenant/clients.js";
import { withSeedSecret } from "../../provider/local-tenant/seed-defaults.js";
import type { TenantApi } from "../../provider/local-tenant/server.js";
import { callApi } from "./test-client.js";

/** Where the corpus is vendored. */
export const CORPUS_DIR = join(__dirname, "..", "fixtures", "recorded", "terraform-provider-auth0");

/** One recorded request and its answer, as the corpus's README describes them. */
export interface RecordedInteraction {
  id: number;
  method: string;
  path: string;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

/** One recording (a cassette). */
interface Recording {
  name: string;
  interactions: RecordedInteraction[];
}

/** The recordings of the corpus, in file order. */
export function loadCorpus(dir: string = CORPUS_DIR): Recording[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => {
      const parsed = JSON.parse(readFileSync(join(dir, file), "utf8")) as Recording;
      return { name: file.replace(/\.json$/, ""), interactions: parsed.interactions };
    });
}

/** The kinds of recorded writes the local tenant can replay. */
export type WriteKind = "PATCH client" | "create client" | "DELETE event stream" | "PUT provider";

/** A recorded write with what the tenant held before it, as the platform last answered it. */
export interface RecordedWrite {
  /** The recording's name and the interaction's id, e.g. `TestAccClientMobile #8`. */
  where: string;
  kind: WriteKind;
  interaction: RecordedInteraction;
  /** The client (PATCH) as last answered in the recording; undefined when never answered. */
  before?: Record<string, unknown> | undefined;
  /** The event stream (DELETE) as last answered, or undefined when gone or never answered. */
  stream?: Record<string, unknown> | undefined;
}

const CLIENT_PATH = /^\/api\/v2\/clients\/([^/?]+)(\?.*)?$/;
const STREAM_PATH = /^\/api\/v2\/event-streams\/([^/?]+)$/;
const PROVIDER_PATH = "/api/v2/guardian/factors/push-notification/selected-provider";

/** The id of a client path, when it is one client's (not a sub-route, not a narrowed read). */
function wholeClientId(path: string): string | undefined {
  const match = CLIENT_PATH.exec(path);
  if (match === null || match[2] !== undefined) return undefined;
  return match[1] === "cimd" ? undefined : match[1];
}

/** Every write of a recording the local tenant can replay, each with what was answered before it. */
function writesOf(recording: Recording): RecordedWrite[] {
  const clients = new Map<string, Record<string, unknown>>();
  const streams = new Map<string, Record<string, unknown> | undefined>();
  const writes: RecordedWrite[] = [];
  for (const interaction of recording.interactions) {
    const { method, path, status, responseBody } = interaction;
    const where = `${recording.name} #${interaction.id}`;
    const clientId = wholeClientId(path);
    const streamId = STREAM_PATH.exec(path)?.[1];
    if (method === "POST" && path === "/api/v2/clients" && status === 201) {
      writes.push({ where, kind: "create client", interaction });
    } else if (method === "PATCH" && clientId !== undefined) {
      writes.push({ where, kind: "PATCH client", interaction, before: clients.get(clientId) });
    } else if (method === "DELETE" && streamId !== undefined) {
      writes.push({
        where,
        kind: "DELETE event stream",
        interaction,
        stream: streams.get(streamId),
      });
      streams.set(streamId, undefined);
    } else if (method === "PUT" && path === PROVIDER_PATH) {
      writes.push({ where, kind: "PUT provider", interaction });
    }
    // What the platform answered last, for the next write.
    if (status < 300 && isPlainObject(responseBody)) {
      const answeredId = responseBody.client_id;
      if (path.startsWith("/api/v2/clients") && typeof answeredId === "string") {
        if (clientId !== undefined || (method === "POST" && path === "/api/v2/clients")) {
          clients.set(answeredId, responseBody);
        }
      }
      const answeredStream = responseBody.id;
      if (path.startsWith("/api/v2/event-streams") && typeof answeredStream === "string") {
        streams.set(answeredStream, responseBody);
      }
    }
  }
  return writes;
}

/** Every replayable write of the corpus, recording by recording. */
export function recordedWrites(recordings: readonly Recording[]): RecordedWrite[] {
  return recordings.flatMap(writesOf);
}

/** What the recorder put in place of a secret. */
const REDACTED = "[REDACTED]";

/** A field the comparison leaves out, for the reason given (docs/design/local-tenant.md). */
export interface IgnoredField {
  /** A wire path (`tenant`, `addons.samlp.logout`); `*` stands for any one key. */
  path: string;
  /** Which kinds of write it applies to. */
  kinds: readonly WriteKind[];
  /** Why it does not matter, or why it still differs. */
  reason: string;
  /**
   * The field is one the spec does not have, which the local tenant refuses (400): it is also
   * left out of the body sent.
   */
  notInSpec?: true;
  /** Only these writes (`TestAccClientCIMD #7`); every write of the kinds when not given. */
  writes?: readonly string[];
}

/** A grant type as the spec spells it, for the platform's own spelling of it. */
export interface Spelling {
  /** The platform's prefix, as recorded. */
  platform: string;
  /** The spec's. */
  spec: string;
  /** Why they differ. */
  reason: string;
}

/** `value` with every string's `spelling.platform` prefix spelt as the spec does. */
function respelt(value: unknown, spellings: readonly Spelling[]): unknown {
  if (typeof value === "string") {
    const found = spellings.find((s) => value.startsWith(s.platform));
    return found === undefined ? value : found.spec + value.slice(found.platform.length);
  }
  if (Array.isArray(value)) return value.map((item) => respelt(item, spellings));
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, respelt(v, spellings)]));
}

/** `body` without the paths of `fields` (dot-separated wire paths). */
function withoutPaths(body: unknown, fields: readonly IgnoredField[]): unknown {
  if (!isPlainObject(body)) return body;
  const out = structuredClone(body);
  for (const { path } of fields) {
    const keys = path.split(".");
    let parent: unknown = out;
    for (const key of keys.slice(0, -1)) parent = isPlainObject(parent) ? parent[key] : undefined;
    if (isPlainObject(parent)) delete parent[keys[keys.length - 1] as string];
  }
  return out;
}

/** Whether `path` is matched by `pattern` (`*` for any one segment). */
function pathMatches(pattern: string, path: string): boolean {
  const a = pattern.split(".");
  const b = path.split(".");
  return a.length === b.length && a.every((segment, i) => segment === "*" || segment === b[i]);
}

/** One difference between the platform's answer and the local tenant's. */
export interface Difference {
  where: string;
  /** `status`, or the wire path of the answer that differs. */
  path: string;
  platform: unknown;
  local: unknown;
}

/**
 * The differences between `platform` (recorded) and `local` at `path`, leaving out the
 * platform's redacted values (whose presence still counts) and the ignored paths.
 */
export function answerDifferences(
  platform: unknown,
  local: unknown,
  ignored: (path: string) => boolean,
  path = "",
): Omit<Difference, "where">[] {
  if (path !== "" && ignored(path)) return [];
  if (platform === REDACTED && local !== undefined) return [];
  if (isPlainObject(platform) && isPlainObject(local)) {
    const keys = new Set([...Object.keys(platform), ...Object.keys(local)]);
    return [...keys].flatMap((key) =>
      answerDifferences(platform[key], local[key], ignored, path === "" ? key : `${path}.${key}`),
    );
  }
  if (Array.isArray(platform) && Array.isArray(local) && platform.length === local.length) {
    return platform.flatMap((item, index) =>
      answerDifferences(item, local[index], ignored, `${path}[${index}]`),
    );
  }
  return JSON.stringify(platform) === JSON.stringify(local) ? [] : [{ path, platform, local }];
}

/** A recorded error answer whose body the recorder replaced whole (the corpus's README). */
function isRedactedErrorBody(status: number, body: unknown): boolean {
  return status >= 400 && !(isPlainObject(body) && "statusCode" in body);
}

/** The outcome of one write replayed. */
export interface Replayed {
  write: RecordedWrite;
  differences: Difference[];
}

/**
 * The client to seed before a PATCH: as the platform last answered it, with the secret it holds
 * but does not answer while `client_authentication_methods` is set (it answers one again once
 * they are removed); for a client never answered before its PATCH (the global client, found by a
 * narrowed list read), the PATCH's own answer, so that only the status and the fields sent are put
 * to the test.
 */
function seededBefore(write: RecordedWrite): WireClient {
  const client = structuredClone(write.before ?? write.interaction.responseBody) as WireClient;
  if (isPlainObject(client.client_authentication_methods) && !("client_secret" in client)) {
    client.client_secret = REDACTED;
  }
  return client;
}

/** The local tenant's answer to `write` (its body sent as `body`), its status and body. */
async function localAnswer(
  api: TenantApi,
  token: string,
  write: RecordedWrite,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const { interaction } = write;
  switch (write.kind) {
    case "create client": {
      // The local tenant creates clients from a seed only: the seed's own defaults.
      const answered = interaction.responseBody as Record<string, unknown>;
      const client = withSeedSecret({
        ...(body as Record<string, unknown>),
        client_id: String(answered.client_id),
      }) as WireClient;
      return { status: 201, body: withResponseDefaults(client, api.tenant) };
    }
    case "PATCH client": {
      api.store.putClient(seededBefore(write));
      break;
    }
    case "DELETE event stream": {
      const id = STREAM_PATH.exec(interaction.path)?.[1] as string;
      api.store.deleteEventStream(id);
      if (write.stream !== undefined) api.store.putEventStream({ ...write.stream, id });
      break;
    }
    case "PUT provider":
      break;
  }
  const answer = await callApi(api, interaction.method, interaction.path, {
    token,
    ...(body === null ? {} : { json: body }),
  });
  return { status: answer.status, body: answer.text === "" ? null : answer.body };
}

/** What the comparison leaves out and how it spells the platform's words as the spec does. */
export interface Leniency {
  ignored: readonly IgnoredField[];
  spellings: readonly Spelling[];
}

/**
 * Replays `write` against `api` (whose admin `token` may write everything) and compares the answer
 * with the platform's: the status, then, for a success, the whole body but the ignored fields.
 */
export async function replayWrite(
  api: TenantApi,
  token: string,
  write: RecordedWrite,
  leniency: Leniency,
): Promise<Replayed> {
  const applies = leniency.ignored.filter(
    (f) =>
      f.kinds.includes(write.kind) && (f.writes === undefined || f.writes.includes(write.where)),
  );
  const sent = withoutPaths(
    respelt(write.interaction.requestBody, leniency.spellings),
    applies.filter((f) => f.notInSpec === true),
  );
  const local = await localAnswer(api, token, write, sent);
  const { status } = write.interaction;
  const responseBody = respelt(write.interaction.responseBody, leniency.spellings);
  const where = write.where;
  if (local.status !== status) {
    return {
      write,
      differences: [{ where, path: "status", platform: status, local: local.status }],
    };
  }
  if (isRedactedErrorBody(status, responseBody)) return { write, differences: [] };
  const ignored = (path: string) => applies.some((f) => pathMatches(f.path, path));
  const differences = answerDifferences(responseBody, local.body, ignored).map((d) => ({
    where,
    ...d,
  }));
  return { write, differences };
}
