import { isPlainObject } from "../../provider/json.js";

/**
 * A PATCH applied to a client as the platform's own recorded traffic shows it (docs/design/
 * platform.md, "How a PATCH applies"), for the pure plan's tests, with no server: only the fields
 * sent change; `null` removes at every depth; lists are stored whole; the objects the recordings
 * show merging merge member by member, those they show replaced are stored as sent; every other
 * object takes the `model` given, since the recordings do not tell. Written from the recorded
 * facts, not from the plan's own annotations, so that a test can catch the plan reading them wrong.
 */

/** How the objects the recordings leave undecided take a PATCH. */
export type PatchModel = "merge" | "replace";

/** Both models, for `describe.each`. */
export const PATCH_MODELS: readonly PatchModel[] = ["merge", "replace"];

/** The paths the recordings show merging (TestAccClientMobile #8 for `mobile` and `native_social_login`, ...). */
const MERGED = new Set([
  "mobile",
  "session_transfer",
  "signed_request_object",
  "jwt_configuration",
  "client_metadata",
  "native_social_login",
]);

/** The paths the recordings show replaced (TestAccClientSSOIntegrationWithSAML #4). */
const REPLACED = new Set(["addons.samlp", "addons.samlp.mappings"]);

type Client = Record<string, unknown>;

/** `client` after a PATCH of `body` under `model`; a copy. */
export function applyRecordedPatch(client: Client, body: Client, model: PatchModel): Client {
  return applyAt([], client, body, model) as Client;
}

function applyAt(path: string[], old: unknown, sent: unknown, model: PatchModel): unknown {
  if (!isPlainObject(sent)) return sent;
  const key = path.join(".");
  const merges = path.length === 0 || MERGED.has(key) || (!REPLACED.has(key) && model === "merge");
  if (!merges || !isPlainObject(old)) return withoutNulls(sent);
  const next = new Map(Object.entries(old));
  for (const [name, value] of Object.entries(sent)) {
    if (value === null) next.delete(name);
    else next.set(name, applyAt([...path, name], old[name], value, model));
  }
  return Object.fromEntries(next);
}

function withoutNulls(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, member]) => member !== null)
      .map(([name, member]) => [name, withoutNulls(member)]),
  );
}
