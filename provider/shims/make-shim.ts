import type { TenantProvider } from "../providers/provider-base.js";
import type { ResourceKind } from "../schema/index.js";

/**
 * Builds the provider object that Pulumi serializes into the state of every resource of `kind`
 * (the `__provider` property) and runs in its dynamic-provider host.
 *
 * Each method loads the implementation by package name when it is called, and delegates. So:
 * - the serialized text holds no implementation, no credential and nothing the closure serializer
 *   cannot carry (Ajv, axios, Maps; docs/design/provider-closure.md);
 * - refresh and destroy of an old stack run the code installed now, not a copy frozen in state;
 * - every resource in the host shares one module instance: one token cache, one rate limiter.
 *
 * Each shim module assigns the result to `module.exports`. When the package is installed in
 * `node_modules`, Pulumi's serializer recognises a module's exports object and writes
 * `require("pulumi-tenant/shims/<kind>")` instead of the functions (about 150 bytes); elsewhere (a
 * linked checkout) it serializes these small functions by value, which still delegate by name.
 *
 * Nothing may be imported into this module at run time: whatever it references is serialized.
 */
export function makeShim(kind: ResourceKind): TenantProvider {
  const impl = (): TenantProvider => require("pulumi-tenant/runtime").providers[kind];
  return {
    configure: (req) => impl().configure(req),
    check: (olds, news) => impl().check(olds, news),
    diff: (id, olds, news) => impl().diff(id, olds, news),
    // A create that fails with a partial state (providers/created-not-held.ts) is recorded by the
    // host from the error as it is: the serialized provider goes with it, as the host adds it to
    // the outputs of a create that succeeds, so that a later update or destroy can run.
    create: (inputs) =>
      impl()
        .create(inputs)
        .catch((error: unknown) => {
          const partial = error as { properties?: Record<string, unknown> } | null;
          if (partial?.properties !== undefined) {
            partial.properties = { ...partial.properties, __provider: inputs.__provider };
          }
          throw error;
        }),
    read: (id, props) => impl().read(id, props),
    update: (id, olds, news) => impl().update(id, olds, news),
    delete: (id, props) => impl().delete(id, props),
  };
}
