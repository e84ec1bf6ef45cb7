import type * as pulumi from "@pulumi/pulumi";
import { apiClientGateway } from "../api/client-gateway.js";
import { startClientReadPass } from "../api/tenants.js";
import { DEFAULT_FIELDS, wireFieldsToRead } from "../clients/catalogue.js";
import { declarationOf } from "../clients/declaration.js";
import { type ConfigSource, configuredOrigin } from "../config.js";
import { keptStackTenant, withConnectionChange } from "../connection/change.js";
import { TenantApiError, TenantImportError, type TenantValidationError } from "../errors.js";
import { isPlainObject, type Props } from "../json.js";
import { writesNotHeld } from "../plan/answer-check.js";
import {
  clientUpdate,
  deletePriors,
  fieldsToPutBack,
  fieldsToRead,
  keyObjectsAtStake,
  planCreate,
  planDelete,
  planDiff,
  planRead,
  planUpdate,
  putBackAtUpdate,
} from "../plan/client-settings.js";
import { type DeclaredClient, declaredClient } from "../plan/declared.js";
import { unscopedKeysError } from "../plan/key-material.js";
import { claimOf, ownerConflict, type PathClaim } from "../plan/one-owner.js";
import type { PriorEntry } from "../plan/prior-paths.js";
import { absencesLeft, putBackNotes, putBackRefusal } from "../plan/put-back-messages.js";
import { createdNotHeld } from "./created-not-held.js";
import { type Adopted, TenantProviderBase, type TenantResourceCore } from "./provider-base.js";
import {
  concerning,
  describeResource,
  type Operation,
  runOperation,
  type Target,
  target,
} from "./run-operation.js";
import { warnUser } from "./warnings.js";

const KIND = "ClientSettings";

/**
 * The implementation behind the `ClientSettings` resource (resources/client-settings.ts); usable
 * directly in tests. It turns the inputs once into what the program declares (`plan/declared.ts`)
 * and wires the pure plan (`plan/client-settings.ts`), which decides from that, to the gateway
 * (`api/client-gateway.ts`), which reads and writes the client.
 */
export class ClientSettingsProvider extends TenantProviderBase implements TenantResourceCore {
  protected readonly kind = KIND;

  /**
   * Also starts a new client read pass: the provider host configures once per command, and no
   * read of this command may be served from what an earlier one fetched (docs/design/client-reads.md).
   */
  override configure(req: { readonly config: ConfigSource }): Promise<void> {
    startClientReadPass();
    this.#claims.clear();
    return super.configure(req);
  }

  /**
   * The paths each resource of this command declares, by tenant, client and resource name: every
   * resource of a run is checked in this one process (both faces), so a later check sees the
   * earlier ones (docs/design/decisions.md, "One owner per path").
   */
  readonly #claims = new Map<string, PathClaim>();

  /**
   * The inputs' failures; when there are none, also whether another resource of this command
   * declares a path of the same client ({@link ownerConflict}). The resource's own claim replaces
   * its earlier one, so a check made twice never meets itself.
   */
  override async check(olds: unknown, news: Props): Promise<pulumi.dynamic.CheckResult> {
    const checked = await super.check(olds, news);
    if ((checked.failures ?? []).length > 0) return checked;
    const claim = claimOf(news, configuredOrigin());
    if (claim === undefined) return checked;
    const conflict = ownerConflict(this.#claims.values(), claim);
    this.#claims.set(JSON.stringify([claim.tenant, claim.clientId, claim.resource]), claim);
    if (conflict !== undefined) return { ...checked, failures: [conflict] };
    // A create is previewed by check alone (an update, by diff): its key material is refused here.
    if (isPlainObject(olds) && olds.clientId !== undefined) return checked;
    const declared = declaredClient(news);
    const refusal = await unscopedKeys(declared, keyObjectsAtStake(declared), news);
    return refusal === undefined
      ? checked
      : { ...checked, failures: [{ property: "", reason: refusal.message }] };
  }

  /**
   * Replaces on a new `clientId` (adopting the new client first) or another tenant (restoring the
   * old client first, so that even two domains of one tenant end with the declared settings);
   * otherwise reports a change when a declared field differs from its last known value, a field
   * left the program, or the connection changed. Makes no API call, except, when key material
   * is at stake, for the credentials' token ({@link unscopedKeys}). Says at preview what each
   * path this change puts back goes back to, and warns of each a put-back will leave because the
   * API cannot be told it has no value ({@link warnUser}).
   *
   * @throws {ImmutableFieldError} when `thirdPartySecurityMode` would change on the same client.
   * @throws {TenantValidationError} when key material at stake needs a scope the token lacks.
   */
  diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    return concerning(describeResource(KIND, news), async () => {
      const declared = declaredClient(news);
      const diff = withConnectionChange(
        planDiff(declared, olds),
        this.connectionChange(olds, news),
        "restore-old-first",
      );
      const replaced = diff.replaces.length > 0;
      const refusal = await unscopedKeys(
        declared,
        keyObjectsAtStake(declared, replaced ? undefined : olds),
        news,
      );
      if (refusal !== undefined) throw refusal;
      // A replace puts the old resource's every path back; an update, those that left the program.
      const putBack = replaced ? deletePriors(olds) : putBackAtUpdate(declared, olds);
      const resource = describeResource(KIND, news);
      const clientId = String(olds.clientId);
      for (const line of [...putBackNotes(clientId, putBack), ...absencesLeft(clientId, putBack)]) {
        warnUser(`${resource}: ${line}`);
      }
      return diff;
    });
  }

  /**
   * Adopts the client: reads what the program declares, remembers each owned path's prior and
   * PATCHes what differs, checking the answer.
   *
   * @throws {WriteNotHeldError} when the answer does not hold what was sent, carrying the partial
   * state ({@link createdNotHeld}): the engine records the resource with its true priors.
   */
  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runInTurn(target(KIND, inputs), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const declared = declaredClient(inputs);
      const { clientId } = declared;
      const live = await clients.getClient(clientId, fieldsToRead(declared));
      const plan = planCreate(declared, live);
      const answer = await clients.patchClient(clientId, plan.send);
      const recorded = this.stackTenantOutput(inputs);
      try {
        return { id: clientId, outs: { ...plan.report(answer), ...recorded } };
      } catch (error) {
        throw createdNotHeld(error, clientId, recorded);
      }
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const live = await apiClientGateway(client, context).findClient(
        id,
        fieldsToRead(declaredClient(props)),
      );
      // The client itself is gone: so are its settings. The next `up` fails on the missing client.
      return live === undefined
        ? { id: "", props: {} }
        : { id, props: { ...planRead(props, live), ...keptStackTenant(props) } };
    });
  }

  /**
   * Adopts client `id` as it is: the inputs are its values of the fields `generate` declares by
   * default (`clients/catalogue.ts`), with what a program cannot declare left out as `generate`
   * leaves it out; the outputs are what create with those inputs stores, which sends nothing
   * because every declared value is the live one.
   *
   * @throws {TenantImportError} when the tenant has no client `id`.
   */
  adopt(id: string, props: Props): Promise<Adopted> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const live = await clients.findClient(id, wireFieldsToRead(DEFAULT_FIELDS));
      if (live === undefined) {
        throw new TenantImportError(
          `cannot import client ${id}: the tenant has no client with that id`,
        );
      }
      const inputs: Props = { clientId: id, ...declarationOf(live, DEFAULT_FIELDS).values };
      return { id, inputs, outs: planCreate(declaredClient(inputs), live).report(undefined) };
    });
  }

  update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return runInTurn(target(KIND, news, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const declared = declaredClient(news);
      const { clientId } = declared;
      const update = clientUpdate(declared, olds);
      const live = update.needsLive
        ? await clients.getClient(clientId, fieldsToRead(declared, update.removed))
        : undefined;
      const plan = planUpdate(update, live);
      const outs = plan.report(await clients.patchClient(clientId, plan.send));
      return { outs: { ...outs, ...this.stackTenantOutput(news) } };
    });
  }

  /**
   * Puts every owned path back to its prior: reads the live client (so that a put-back the tenant
   * already holds is not sent, and an object that may be replaced is sent with the rest of it as it
   * is now: docs/design/decisions.md "What a resource owns") and PATCHes what differs, checking the
   * answer. Calls nothing when there is no prior to put back.
   *
   * @throws {WriteNotHeldError} when the answer does not hold a prior put back: the resource stays
   * in the state, and the next destroy tries again.
   */
  delete(id: string, props: Props): Promise<void> {
    const fields = fieldsToPutBack(props);
    if (fields.length === 0) return Promise.resolve();
    return runInTurn(target(KIND, props, id), async ({ client, context }) => {
      const clients = apiClientGateway(client, context);
      const live = await clients.findClient(id, fields);
      // A client deleted meanwhile has no settings left to restore.
      if (live === undefined) return;
      const { send, writes } = planDelete(props, live);
      for (const line of absencesLeft(id, deletePriors(props))) {
        warnUser(`${describeResource(KIND, props, id)}: ${line}`);
      }
      const answer = await naming(deletePriors(props), send, () =>
        clients.patchClient(id, send, { ifExists: true }),
      );
      const notHeld = writesNotHeld(id, writes, answer);
      if (notHeld !== undefined) throw notHeld;
    });
  }
}

/**
 * The preview's refusal of key material at stake (`fields`) the credentials may not see
 * ({@link unscopedKeysError}), from the scopes of the token the operations of `props`'s tenant
 * use. Asks for no token when nothing is at stake; refuses nothing when the scopes cannot be read,
 * the settings included (a preview may run without credentials): `up` refuses on what the answer
 * holds (docs/design/decisions.md, "Key material").
 */
async function unscopedKeys(
  declared: DeclaredClient,
  fields: readonly string[],
  props: Props,
): Promise<TenantValidationError | undefined> {
  if (fields.length === 0) return undefined;
  const scopes = await runOperation(target(KIND, props), ({ client, context }) =>
    client.grantedScopes(context),
  ).catch(() => undefined);
  return unscopedKeysError(declared, fields, scopes);
}

/** The last operation queued on each client of each tenant, by `[origin, clientId]`. */
const turns = new Map<string, Promise<void>>();

/**
 * {@link runOperation} for an operation that reads a client and PATCHes it: the operations on one
 * client of one tenant take turns in this process, each reading after the last one's write, since
 * a PATCH carries whole objects with the live values of the paths the resource does not own, and
 * two resources on disjoint paths of one client (docs/design/decisions.md, "One owner per path") created
 * in parallel would each send the other's paths as they were before either wrote.
 */
function runInTurn<T>(on: Target, body: (operation: Operation) => Promise<T>): Promise<T> {
  const clientId = on.id ?? String(on.props.clientId);
  return runOperation(on, (operation) => {
    const key = JSON.stringify([operation.settings.origin, clientId]);
    const turn = (turns.get(key) ?? Promise.resolve()).then(() => body(operation));
    const done = turn.then(
      () => undefined,
      () => undefined,
    );
    turns.set(key, done);
    void done.then(() => {
      if (turns.get(key) === done) turns.delete(key);
    });
    return turn;
  });
}

/**
 * Runs the PATCH of `body`; a 400 refusing the priors it puts back (`putBack`) is reported on
 * those paths and their priors, not on a field the program did not touch (docs/design/decisions.md,
 * "What a resource owns").
 */
async function naming<T>(
  putBack: readonly PriorEntry[],
  body: Record<string, unknown>,
  patch: () => Promise<T>,
): Promise<T> {
  try {
    return await patch();
  } catch (error) {
    const refusal = error instanceof TenantApiError && putBackRefusal(putBack, body, error);
    throw refusal || error;
  }
}
