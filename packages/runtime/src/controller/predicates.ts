import type { KubeObject } from '@kplane/api';

/** A change seen by a controller's watch, before it becomes a workqueue key. */
export type WatchChange<T extends KubeObject = KubeObject> =
  | { type: 'create'; object: T }
  | { type: 'update'; old: T; object: T }
  | { type: 'delete'; object: T };

/** Decides whether a change should wake the controller. */
export type Predicate<T extends KubeObject = KubeObject> = (change: WatchChange<T>) => boolean;

/** Passes updates that change metadata.generation (spec changes); creates and deletes always pass. */
export const generationChanged: Predicate = (c) => c.type !== 'update' || c.old.metadata?.generation !== c.object.metadata?.generation;

/** Passes updates that change the labels. */
export const labelsChanged: Predicate = (c) => c.type !== 'update' || JSON.stringify(c.old.metadata?.labels ?? {}) !== JSON.stringify(c.object.metadata?.labels ?? {});

/** Passes updates that change the annotations. */
export const annotationsChanged: Predicate = (c) =>
  c.type !== 'update' || JSON.stringify(c.old.metadata?.annotations ?? {}) !== JSON.stringify(c.object.metadata?.annotations ?? {});

/** Passes updates whose resourceVersion changed (drops periodic resyncs). */
export const resourceVersionChanged: Predicate = (c) => c.type !== 'update' || c.old.metadata?.resourceVersion !== c.object.metadata?.resourceVersion;

/** Passes a change when any of the predicates does. */
export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return (c) => ps.some((p) => p(c));
}

/** Passes a change when all the predicates do. */
export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return (c) => ps.every((p) => p(c));
}
