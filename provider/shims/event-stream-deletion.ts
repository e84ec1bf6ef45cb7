import { makeShim } from "./make-shim.js";

/** The serialized provider of {@link import("../resources/event-stream-deletion.js").EventStreamDeletion}; see {@link makeShim}. */
export = makeShim("EventStreamDeletion");
