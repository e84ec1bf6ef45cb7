import { makeShim } from "./make-shim.js";

/** The serialized provider of {@link import("../resources/push-provider-selection.js").PushProviderSelection}; see {@link makeShim}. */
export = makeShim("PushProviderSelection");
