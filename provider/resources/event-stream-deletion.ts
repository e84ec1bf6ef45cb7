import * as pulumi from "@pulumi/pulumi";
import { describeResource, NAME_KEY } from "../resource-name.js";
import type { EventStreamDeletionInputs } from "../schema/index.js";
import { type Props, type TenantProvider, TenantProviderBase } from "./provider-base.js";
import { shimFor } from "./registration.js";
import { runOperation } from "./run-operation.js";

const KIND = "EventStreamDeletion";

/** The inputs of {@link EventStreamDeletion}, each of which may be an Output. */
export type EventStreamDeletionArgs = {
  [K in keyof EventStreamDeletionInputs]: pulumi.Input<EventStreamDeletionInputs[K]>;
};

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
 * Changing `eventStreamId` replaces the resource, i.e. deletes the other stream.
 */
export class EventStreamDeletion extends pulumi.dynamic.Resource {
  /** The id of the event stream that must not exist. */
  declare readonly eventStreamId: pulumi.Output<string>;

  constructor(name: string, args: EventStreamDeletionArgs, opts?: pulumi.CustomResourceOptions) {
    super(shimFor(KIND), name, { ...args, [NAME_KEY]: name }, opts, "tenant", KIND);
  }
}

/** The implementation behind {@link EventStreamDeletion}; usable directly in tests. */
export class EventStreamDeletionProvider extends TenantProviderBase implements TenantProvider {
  protected readonly kind = KIND;

  diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
    const changes = olds.eventStreamId !== news.eventStreamId;
    return Promise.resolve({
      changes,
      replaces: changes ? ["eventStreamId"] : [],
      deleteBeforeReplace: false,
    });
  }

  create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
    return runOperation(describeResource(KIND, inputs), async ({ client, context }) => {
      await client.call(context, {
        method: "DELETE",
        path: streamPath(inputs.eventStreamId),
        accept: [404],
      });
      return {
        id: String(inputs.eventStreamId),
        outs: { [NAME_KEY]: inputs[NAME_KEY], eventStreamId: inputs.eventStreamId },
      };
    });
  }

  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
    return runOperation(describeResource(KIND, props, id), async ({ client, context }) => {
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

  /** Never reached with a real change (every change of `eventStreamId` replaces); kept total. */
  update(_id: string, _olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
    return Promise.resolve({
      outs: { [NAME_KEY]: news[NAME_KEY], eventStreamId: news.eventStreamId },
    });
  }

  /** A deleted event stream cannot be brought back: there is nothing to undo. */
  delete(_id: string, _props: Props): Promise<void> {
    return Promise.resolve();
  }
}
