/**
 * Server-side apply through the generic store: an applied configuration is checked as
 * kube-apiserver checks an apply patch, merged into the live object (or becomes it: create by
 * apply) by `@kplane/api`'s field manager, and written through the store's create or update
 * path with the managedFields the apply computed.
 */
import type { KubeObject } from '@kplane/api';
import { applyConfiguration, badRequest, pruneUnknownFields } from '@kplane/api';
import type { ApplyOptions, Store } from './store.js';

/** The object's metadata, made an object when it is not one. */
export function meta(obj: KubeObject): NonNullable<KubeObject['metadata']> {
  if (!obj.metadata || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}

/**
 * Applies `config` to object `name` of `store` (creating it when absent): the manager's Apply
 * entry owns exactly the configuration's fields; a different value of a field another manager
 * owns is a 409 with one cause per field unless `force`.
 */
export async function applyObject(store: Store, namespace: string | undefined, name: string, config: KubeObject, opts: ApplyOptions = {}): Promise<{ object: KubeObject; created: boolean }> {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw badRequest('the body of the request must be a JSON object');
  if (config.apiVersion !== store.apiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${String(config.apiVersion ?? '')}, expected: ${store.apiVersion}`);
  }
  if (config.metadata?.managedFields != null) throw badRequest('metadata.managedFields must be nil');
  const bodyName = config.metadata?.name;
  if (bodyName !== undefined && bodyName !== name) {
    throw badRequest(`the name of the object (${String(bodyName)}) does not match the name on the URL (${name})`);
  }
  // Apply knows only the fields the schema declares, whatever fieldValidation says.
  const unknown = pruneUnknownFields(structuredClone(config), store.schema(), store.definitions);
  if (unknown.length) {
    const errs = unknown.map((p) => `.${p}: field not declared in schema`);
    const ns = store.type.namespaced ? (namespace ?? '') : '';
    throw badRequest(`failed to create typed patch object (${ns}/${name}; ${store.apiVersion}, Kind=${store.type.kind}): ${errs.length === 1 ? errs[0] : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n')}`);
  }
  // The configuration is type-checked as a body is, but merged with its nulls: a null applied
  // to a field removes it from the object (structured merge keeps nulls; Go's decoding of the
  // merged object then drops them) and is owned by the applier.
  const checked = structuredClone(config);
  store.admitBody(checked, opts);
  config = { ...config, kind: checked.kind, apiVersion: checked.apiVersion };
  const sub = opts.subresource ?? '';
  const ctx = store.fieldManagerContext(opts, sub);
  const pinned = config.metadata?.resourceVersion;
  if (!(await store.exists(namespace, name))) {
    if (sub) throw store.notFound(name);
    const obj = applyConfiguration(undefined, config, ctx, { force: opts.force });
    meta(obj).name = name;
    const created = await store.create(namespace, obj, { ...opts, warnings: [], applied: true });
    return { object: created, created: true };
  }
  const object = await store.guaranteedUpdate(
    namespace,
    name,
    (current) => {
      const next = applyConfiguration(current, config, ctx, { force: opts.force });
      if (pinned) meta(next).resourceVersion = pinned;
      else delete meta(next).resourceVersion;
      return next;
    },
    { ...opts, warnings: [], applied: true, subresource: sub },
  );
  return { object, created: false };
}
