import * as pulumi from "@pulumi/pulumi";
import type { EventStreamDeletionInputs } from "../schema/event-stream-deletion.js";
import { pauseStackTraces, type ResourceArgs, registration } from "./registration.js";

const KIND = "EventStreamDeletion";

/**
 * The inputs of {@link EventStreamDeletion}, each of which may be an Output, and the tenant the
 * stream is in (default: the stack config's).
 */
export type EventStreamDeletionArgs = ResourceArgs<EventStreamDeletionInputs>;

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
    const traces = pauseStackTraces();
    try {
      super(...registration(KIND, name, { ...args }, args.tenant, opts));
    } catch (error) {
      throw traces.failed(error);
    } finally {
      traces.resume();
    }
  }
}
