import type { SchemaDefinitions } from '@kplane/api';
import type { ResourceType } from './resource.js';
import { Store, type StoreDeps } from './store.js';

/**
 * Every served resource and its store, indexed by group/version/resource. Built-in kinds are
 * registered at start; custom resources are added and removed at run time.
 */
export class Registry {
  private readonly stores = new Map<string, Store>();
  /**
   * The same stores by group, version and resource, one Map each: a lookup (several per request)
   * hashes the request's own strings rather than a key concatenated from them.
   */
  private readonly byResource = new Map<string, Map<string, Map<string, Store>>>();
  readonly definitions: SchemaDefinitions;
  private listeners = new Set<() => void>();

  constructor(private readonly deps: Omit<StoreDeps, 'definitions'> & { definitions: SchemaDefinitions }) {
    this.definitions = deps.definitions;
  }

  private static id(group: string, version: string, resource: string): string {
    return `${group}/${version}/${resource}`;
  }

  /** Adds (or replaces) a resource; returns its store. */
  add(type: ResourceType): Store {
    const store = new Store(type, this.deps);
    this.stores.get(Registry.id(type.group, type.version, type.resource))?.cache.stop();
    this.stores.set(Registry.id(type.group, type.version, type.resource), store);
    let versions = this.byResource.get(type.group);
    if (!versions) this.byResource.set(type.group, (versions = new Map()));
    let resources = versions.get(type.version);
    if (!resources) versions.set(type.version, (resources = new Map()));
    resources.set(type.resource, store);
    this.changed();
    return store;
  }

  /** Removes a resource. */
  remove(group: string, version: string, resource: string): void {
    const id = Registry.id(group, version, resource);
    this.stores.get(id)?.cache.stop();
    const versions = this.byResource.get(group);
    const resources = versions?.get(version);
    if (resources?.delete(resource) && resources.size === 0) {
      versions!.delete(version);
      if (versions!.size === 0) this.byResource.delete(group);
    }
    if (this.stores.delete(id)) this.changed();
  }

  /** The store of a resource, if served. */
  get(group: string, version: string, resource: string): Store | undefined {
    return this.byResource.get(group)?.get(version)?.get(resource);
  }

  /** The store serving a kind in a group/version. */
  byKind(group: string, version: string, kind: string): Store | undefined {
    for (const s of this.stores.values()) {
      if (s.type.group === group && s.type.version === version && s.type.kind === kind) return s;
    }
    return undefined;
  }

  /** All stores, in registration order. */
  all(): Store[] {
    return [...this.stores.values()];
  }

  /** Group names in order of first registration, core ("") first. */
  groups(): string[] {
    const seen: string[] = [];
    for (const s of this.stores.values()) if (!seen.includes(s.type.group)) seen.push(s.type.group);
    return seen.sort((a, b) => (a === '' ? -1 : b === '' ? 1 : 0));
  }

  /** Versions served for a group. */
  versions(group: string): string[] {
    const seen: string[] = [];
    for (const s of this.stores.values()) if (s.type.group === group && !seen.includes(s.type.version)) seen.push(s.type.version);
    return seen;
  }

  /** Stores of one group/version. */
  groupVersion(group: string, version: string): Store[] {
    return this.all().filter((s) => s.type.group === group && s.type.version === version);
  }

  /** Calls fn whenever the set of resources changes (discovery and OpenAPI caches). */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  /** Starts every store's watch cache. */
  async start(): Promise<void> {
    await Promise.all(this.all().filter((s) => !s.type.review && !s.type.read).map((s) => s.cache.start()));
  }

  /** Stops every watch cache. */
  stop(): void {
    for (const s of this.stores.values()) s.cache.stop();
  }
}
