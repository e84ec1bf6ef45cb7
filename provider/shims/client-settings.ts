import { makeShim } from "./make-shim.js";

/** The serialized provider of {@link import("../resources/client-settings.js").ClientSettings}; see {@link makeShim}. */
export = makeShim("ClientSettings");
