import * as pulumi from "@pulumi/pulumi";
import type { Props } from "../json.js";
import { connectionOutput, withConnectionChange } from "../plan/connection.js";
import { NAME_KEY } from "../resource-name.js";
import { type EventStreamDeletionInputs, TENANT_KEY } from "../schema/index.js";
import { type TenantProvider, TenantProviderBase } from "./provider-base.js";
import {
  connectionInput,
  shimFor,
  type TenantConnectionArgs,
  TYPE_MODULE,
} from "./registration.js";
import { runOperation, target } from "./run-operation.js";

const KIND = "EventStreamDeletion";

/**
 * The inputs of {@link EventStreamDeletion}, each of which may be an Output, and the tenant the
 * stream is in (default: the stack config's).
 */
export type EventStreamDeletionArgs = {
  [K in keyof EventStreamDeletionInputs]: pulumi.Input<EventStreamDeletionInputs[K]>;
} & { readonly tenant?: TenantConnectionArgs };

/** The path of one event stream, relative to the API base. */
function streamPath(id: unknown): string {
  return `/event-streams/${encodeURIComponent(String(id))}`;
}

/**
 * Declares that an event stream must not exist (`DELETE /event-streams/{id}`).
 *
 * - create: deletes the stream; an answer of 404 (already gone) counts as done;
 * - refresh: looks the stream up; if it exists again, the resource leaves the state, so the next
 *   `up` deletes the stream again;
 * - delete (the resource leaving the program): does nothing. A deleted event stream cannot be
 *   restored, by this package or anyone else.
 *
 * Changing `eventStreamId` replaces the resource, i.e. deletes the other stream; so does a new
 * `tenant.domain` (the stream of that id in the other tenant). New credentials for the same tenant
 * are an update that sends nothing.
 */
export class EventStreamDeletion extends pulumi.dynamic.Resource {
  /** The id of the event stream that must not exist. */
  declare readonly eventStreamId: pulumi.Output<string>;

  constructor(name: string, args: EventStreamDeletionArgs, opts?: pulumi.CustomResourceOptions) {
    const props = { ...args, [TENANT_KEY]: connectionInput(args.tenant), [NAME_KEY]: name };
    super(shimFor(KIND), name, props, opts, TYPE_MODULE, KIND);
  }
}

/** The implementation behind {@link EventStreamDeletion}; usable directly in tests. */
export class EventStreamDeletionProvider extends TenantProviderBase implements TenantProvider {
  protected readonly kind = KIND;

  /**
   * A new stream id, or a move to another tenant, replaces. The order does not matter (delete
   * does nothing), so the new stream is deleted first, as Pulumi does by default.
   */
  diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    const changes = olds.eventStreamId !== news.eventStreamId;
    return Promise.resolve(
      withConnectionChange(
        { changes, replaces: changes ? ["eventStreamId"] : [] },
        this.connectionChange(olds, news),
        "create-new-first",
      ),
    );
  }

  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runOperation(target(KIND, inputs), async ({ client, context }) => {
      await client.call(context, {
        method: "DELETE",
        path: streamPath(inputs.eventStreamId),
        accept: [404],
      });
      return {
        id: String(inputs.eventStreamId),
        outs: {
          [NAME_KEY]: inputs[NAME_KEY],
          eventStreamId: inputs.eventStreamId,
          ...connectionOutput(inputs),
        },
      };
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const answer = await client.call(context, {
        method: "GET",
        path: streamPath(id),
        accept: [404],
      });
      // The stream exists again: an empty id tells the engine this resource is gone, so the next
      // `up` creates it, which deletes the stream again.
      return answer.status === 404 ? { id, props } : { id: "", props: {} };
    });
  }

  /**
   * Reached only when the connection changed within the same tenant (every change of
   * `eventStreamId` replaces): records the new connection, sends nothing.
   */
  update(_id: string, _olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return Promise.resolve({
      outs: {
        [NAME_KEY]: news[NAME_KEY],
        eventStreamId: news.eventStreamId,
        ...connectionOutput(news),
      },
    });
  }

  /** A deleted event stream cannot be brought back: there is nothing to undo. */
  delete(_id: string, _props: Props): Promise<void> {
    return Promise.resolve();
  }
}
