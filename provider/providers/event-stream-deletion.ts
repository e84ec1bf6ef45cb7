import type * as pulumi from "@pulumi/pulumi";
import { connectionOutput, withConnectionChange } from "../connection/change.js";
import { TenantImportError } from "../errors.js";
import type { Props } from "../json.js";
import { NAME_KEY } from "../schema/index.js";
import { type Adopted, TenantProviderBase, type TenantResourceCore } from "./provider-base.js";
import { runOperation, target } from "./run-operation.js";

const KIND = "EventStreamDeletion";

/** The path of one event stream, relative to the API base. */
function streamPath(id: unknown): string {
  return `/event-streams/${encodeURIComponent(String(id))}`;
}

/**
 * The implementation behind the `EventStreamDeletion` resource (resources/event-stream-
 * deletion.ts); usable directly in tests.
 */
export class EventStreamDeletionProvider extends TenantProviderBase implements TenantResourceCore {
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
          ...this.stackTenantOutput(inputs),
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
   * Adopts a stream that is already gone: a state saying it must not exist.
   *
   * @throws {TenantImportError} when the stream exists (declare it and run `up` to delete it).
   */
  adopt(id: string, props: Props): Promise<Adopted> {
    return runOperation(target(KIND, props, id), async ({ client, context }) => {
      const answer = await client.call(context, {
        method: "GET",
        path: streamPath(id),
        accept: [404],
      });
      if (answer.status !== 404) {
        throw new TenantImportError(
          `cannot import event stream ${id}: it exists; declare the resource and run \`pulumi up\` to delete it`,
        );
      }
      const inputs = { eventStreamId: id };
      return { id, inputs, outs: inputs };
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
        ...this.stackTenantOutput(news),
      },
    });
  }

  /** A deleted event stream cannot be brought back: there is nothing to undo. */
  delete(_id: string, _props: Props): Promise<void> {
    return Promise.resolve();
  }
}
