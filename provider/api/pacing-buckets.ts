/**
 * Which of the tenant's buckets paces a request (docs/design/decisions.md, "A tenant we did not write"):
 * a platform may give an endpoint group a bucket of its own ("each endpoint is configured with a
 * bucket"), whose figures its answers carry while every other answer carries the global bucket's.
 * Requests are grouped by method and route ({@link routeGroup}); every group starts in the shared
 * bucket, and moves to a bucket of its own once its answers, twice running, announce a limit other
 * than the one that bucket holds while another group's answers still announce that one. Pure: the
 * limiter keeps one pacing model per bucket and asks {@link routed} after each answer.
 *
 * @module
 */

import { BOUNDS_SPAN_MS } from "./pacing-figures.js";

/** The bucket every group starts in: the tenant's global one. */
export const SHARED_BUCKET = "shared";

/**
 * The group a request belongs to: its method and its route, each segment that names one item
 * (every second one: `/clients/{id}/credentials/{id}`) written `{id}`, the query left out.
 * Writes to clients (`PATCH /clients/{id}`) and reads of them (`GET /clients/{id}`) are two
 * groups: a platform's endpoint buckets are per method and route.
 */
export function routeGroup(method: string | undefined, path: string | undefined): string {
  const route = (path ?? "/").split("?")[0] ?? "/";
  const segments = route.split("/").filter((segment) => segment.length > 0);
  const template = segments.map((segment, i) => (i % 2 === 1 ? "{id}" : segment)).join("/");
  return `${(method ?? "get").toUpperCase()} /${template}`;
}

/** The bucket of `limit` tokens a group moved to: one per limit announced. */
function bucketNamed(limit: number): string {
  return `limit ${limit}`;
}

/** Which bucket each group is paced by, and what the answers said toward a move. */
export interface Routes {
  /** Each group that moved, and its bucket; every other group is in {@link SHARED_BUCKET}. */
  readonly buckets: ReadonlyMap<string, string>;
  /** A limit other than its bucket's, said once by a group's latest answer. */
  readonly pending: ReadonlyMap<string, number>;
  /**
   * For each bucket, when each group's answer last announced the limit the bucket holds: a
   * group moves away only while another still confirms it.
   */
  readonly confirmed: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** Every group in the shared bucket. */
export const NO_ROUTES: Routes = { buckets: new Map(), pending: new Map(), confirmed: new Map() };

/** The bucket that paces `group`. */
export function bucketOf(routes: Routes, group: string): string {
  return routes.buckets.get(group) ?? SHARED_BUCKET;
}

/**
 * The routes after an answer to a request of `group`, paced by a bucket that holds `held` (its
 * limit; undefined before its first answer), whose sane limit was `announced` (undefined: the
 * answer said none worth reading). The group moves to the bucket of `announced` when it said it
 * twice running and another group's answer confirmed `held` within the last
 * {@link BOUNDS_SPAN_MS}; without such a confirmation, the change cannot be told from the whole
 * bucket's, and the bucket's own model takes the new limit (pacing.ts). Two buckets that announce
 * the same limit cannot be told apart and are taken for one: the slower, safe reading. So a group
 * moves to the bucket that already holds `announced` (`holding`, the shared one included), when
 * there is one, and a group alone in a bucket of its own goes back to such a bucket without a
 * confirmation: groups that all move with a per-minute limit that starts or stops binding end up
 * in one bucket again.
 */
export function routed(
  routes: Routes,
  group: string,
  held: number | undefined,
  announced: number | undefined,
  at: number,
  holding: (limit: number) => string | undefined = () => undefined,
): Routes {
  const bucket = bucketOf(routes, group);
  if (announced === undefined || held === undefined || !Number.isFinite(held)) return routes;
  const pending = new Map(routes.pending);
  if (announced === held) {
    pending.delete(group);
    const mine = new Map(routes.confirmed.get(bucket) ?? []);
    mine.set(group, at);
    for (const [other, when] of mine) if (at - when > BOUNDS_SPAN_MS) mine.delete(other);
    const confirmed = new Map(routes.confirmed);
    confirmed.set(bucket, mine);
    return { ...routes, pending, confirmed };
  }
  const confirmedByOthers = [...(routes.confirmed.get(bucket) ?? [])].some(
    ([other, when]) => other !== group && at - when <= BOUNDS_SPAN_MS,
  );
  // A group alone in a bucket of its own that now says another bucket's limit goes back to it:
  // nobody else can confirm its bucket's limit.
  const known = holding(announced);
  const alone =
    bucket !== SHARED_BUCKET &&
    ![...routes.buckets].some(([other, theirs]) => other !== group && theirs === bucket);
  const mayMove = confirmedByOthers || (alone && known !== undefined);
  if (routes.pending.get(group) !== announced || !mayMove) {
    pending.set(group, announced);
    return { ...routes, pending };
  }
  pending.delete(group);
  const buckets = new Map(routes.buckets);
  const target = known ?? bucketNamed(announced);
  if (target === SHARED_BUCKET) buckets.delete(group);
  else buckets.set(group, target);
  return { ...routes, buckets, pending };
}
