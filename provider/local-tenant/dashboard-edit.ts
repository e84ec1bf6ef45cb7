/**
 * A change made outside the program under test, as a person makes it in the tenant's dashboard:
 * the testing kit's `editClient` (provider/testing.ts), which a drift test needs to make the
 * tenant differ from the stack. It goes through the console's own edit route, the one its Save
 * button and the demo use (docs/design/local-tenant.md, "The console"), so the edit passes the
 * management API's checks, is refused as the API would refuse it, and shows in the console's log
 * as the console's; it is not one of the program's requests (`requests()`).
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { LocalTenantError } from "../errors.js";
import type { WireClient } from "./clients.js";
import { EDITABLE_FIELDS, type EditableField, type ShownClient } from "./console/shared.js";

/** What the dashboard edits of a client: the fields the console's page edits. */
export type DashboardEdit = Partial<Record<EditableField, string | string[]>>;

/** The fields {@link DashboardEdit} takes, as the console's route names them. */
const EDITABLE = EDITABLE_FIELDS.map((entry) => entry.field).join(", ");

/** Where the tenant is and how to reach it. */
interface DashboardTarget {
  /** The console's address, `${domain}/__tenant-api/console`. */
  readonly consoleUrl: string;
  /** With TLS, the CA certificate file to trust. */
  readonly caFile?: string | undefined;
}

/**
 * Sends the edit to the console's `PATCH …/clients/:id` and resolves to the client as the console
 * shows it (key material left out, add-on keys masked).
 *
 * @throws {LocalTenantError} naming the client, the status and the tenant's message when the edit
 *   is refused (an unknown client, a field the dashboard does not edit, a value the API refuses).
 */
export function editAsDashboard(
  target: DashboardTarget,
  clientId: string,
  edit: DashboardEdit,
): Promise<WireClient> {
  const url = new URL(`${target.consoleUrl}/clients/${encodeURIComponent(clientId)}`);
  const body = JSON.stringify(edit);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const call = send(
      url,
      {
        method: "PATCH",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        ...(target.caFile === undefined ? {} : { ca: readFileSync(target.caFile) }),
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (chunk: Buffer) => chunks.push(chunk));
        answer.on("error", reject);
        answer.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          if (answer.statusCode === 200) {
            resolve((parsed as ShownClient).client as WireClient);
            return;
          }
          const message =
            typeof (parsed as { message?: unknown })?.message === "string"
              ? (parsed as { message: string }).message
              : text;
          reject(
            new LocalTenantError(
              `editClient ${JSON.stringify(clientId)}: the dashboard's edit was refused with ` +
                `${answer.statusCode}: ${message} (it edits ${EDITABLE})`,
            ),
          );
        });
      },
    );
    call.on("error", (error) =>
      reject(new LocalTenantError(`editClient ${JSON.stringify(clientId)}: ${error.message}`)),
    );
    call.end(body);
  });
}
