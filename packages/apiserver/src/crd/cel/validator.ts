/**
 * The rules of a whole schema as a tree that parallels it (only the branches that hold rules),
 * compiled once per CRD version and walked over each object and its old version.
 */
import type { SchemaObject, StatusCause } from '@kplane/api';
import { isDeepStrictEqual } from 'node:util';
import type { Correlated } from '../schema-values.js';
import { compileRules, evaluateRules, newCostBudget, type CompiledRule, type CostBudget } from './rules.js';

/** One schema node with rules somewhere at or below it. */
export interface CelNode {
  schema: SchemaObject;
  rules: CompiledRule[];
  properties?: Map<string, CelNode>;
  items?: CelNode;
  additionalProperties?: CelNode;
  /** An x-kubernetes-embedded-resource (its rules see apiVersion, kind and metadata.name). */
  resourceRoot: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Compiles every rule of a schema; undefined when the schema has none. */
export function buildCelValidator(schema: SchemaObject, resourceRoot = true): CelNode | undefined {
  const rules = compileRules(schema, resourceRoot);
  let properties: Map<string, CelNode> | undefined;
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    const child = buildCelValidator(s, s['x-kubernetes-embedded-resource'] === true);
    if (child) (properties ??= new Map()).set(k, child);
  }
  const items = schema.items ? buildCelValidator(schema.items, schema.items['x-kubernetes-embedded-resource'] === true) : undefined;
  const add = typeof schema.additionalProperties === 'object' ? buildCelValidator(schema.additionalProperties, schema.additionalProperties['x-kubernetes-embedded-resource'] === true) : undefined;
  if (rules.length === 0 && !properties && !items && !add) return undefined;
  return { schema, rules, properties, items, additionalProperties: add, resourceRoot };
}

function correlatedItem(item: unknown, old: unknown[] | undefined, schema: SchemaObject): Correlated | undefined {
  if (!old || schema['x-kubernetes-list-type'] !== 'map' || !isObj(item)) return undefined;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const match = old.find((o) => isObj(o) && keys.every((k) => isDeepStrictEqual(o[k], item[k])));
  return match === undefined ? undefined : { value: match };
}

/**
 * Runs the rules of the tree over a value (and its correlated old value), charging their cost
 * to `budget` (one per object; kube-apiserver's limits by default). Once the budget is spent,
 * or a rule goes over the per-call limit, no further rule runs.
 */
export function validateCel(node: CelNode, value: unknown, path: string, old: Correlated | undefined, warnings?: string[], budget: CostBudget = newCostBudget()): StatusCause[] {
  const out = evaluateRules(node.rules, { value, schema: node.schema, path, old, resourceRoot: node.resourceRoot }, warnings, budget);
  if (budget.remaining < 0) return out;
  const join = (k: string) => (path ? `${path}.${k}` : k);
  if (Array.isArray(value) && node.items) {
    const oldList = old && Array.isArray(old.value) ? old.value : undefined;
    for (let i = 0; i < value.length && budget.remaining >= 0; i++) {
      const item = value[i];
      out.push(...validateCel(node.items, item, `${path}[${i}]`, correlatedItem(item, oldList, node.schema), warnings, budget));
    }
  } else if (isObj(value)) {
    const oldObj = old && isObj(old.value) && node.schema['x-kubernetes-map-type'] !== 'atomic' ? old.value : undefined;
    const corr = (k: string): Correlated | undefined => (oldObj && Object.prototype.hasOwnProperty.call(oldObj, k) ? { value: oldObj[k] } : undefined);
    for (const [k, v] of Object.entries(value)) {
      if (budget.remaining < 0) break;
      const child = node.properties?.get(k);
      if (child) out.push(...validateCel(child, v, join(k), corr(k), warnings, budget));
      else if (node.additionalProperties && !node.schema.properties?.[k]) out.push(...validateCel(node.additionalProperties, v, `${path}[${k}]`, corr(k), warnings, budget));
    }
  }
  return out;
}
