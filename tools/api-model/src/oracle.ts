/**
 * A cross-check of the derived OpenAPI v3 facts (defaults and enums of fields and of their
 * items) against a Go file kube-openapi generated for the same release: apiextensions-apiserver
 * ships one (pkg/generated/openapi/zz_generated.openapi.go) that covers meta/v1, runtime,
 * version, autoscaling/v1 and apiextensions/v1. Only defaults and enums are read from it.
 */
import type { ItemModel } from '@kplane/api/model';
import type { DraftModel } from './join.js';

interface Facts {
  default?: unknown;
  enum?: unknown[];
}

/** `k8s.io/apimachinery/pkg/apis/meta/v1.Time` → `io.k8s.apimachinery.pkg.apis.meta.v1.Time`. */
export function schemaNameOfGo(goName: string): string {
  const dot = goName.lastIndexOf('.');
  const [host, ...rest] = goName.slice(0, dot).split('/');
  return [host!.split('.').reverse().join('.'), ...rest].join('.') + goName.slice(dot);
}

function depth(line: string): number {
  return /^\t*/.exec(line)![0].length;
}

function goValue(text: string): unknown {
  if (text === 'map[string]interface{}{}') return {};
  return JSON.parse(text) as unknown;
}

/**
 * Compares the model with the defaults and enums of a generated OpenAPI Go file; returns the
 * disagreements and how many fields were compared.
 */
export function compareWithGeneratedOpenApi(goText: string, model: DraftModel): { compared: number; problems: string[] } {
  const functions = new Map<string, string>();
  for (const m of goText.matchAll(/^\t\t"([^"]+)":\s+(schema_\w+)\(ref\),$/gm)) functions.set(m[2]!, m[1]!);
  const lines = goText.split('\n');
  const problems: string[] = [];
  let compared = 0;
  let fn: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const start = /^func (schema_\w+)\(/.exec(lines[i]!);
    if (start) fn = start[1];
    if (!fn || !/^\t{4}Properties: map\[string\]spec\.Schema\{$/.test(lines[i]!)) continue;
    const goName = functions.get(fn);
    const type = goName === undefined ? undefined : model.get(schemaNameOfGo(goName))?.type;
    let j = i + 1;
    for (; j < lines.length && depth(lines[j]!) >= 5; j++) {
      const key = /^\t{5}"([^"]+)": \{$/.exec(lines[j]!);
      if (!key) continue;
      const own: Facts = {};
      const item: Facts = {};
      for (j++; j < lines.length && !(depth(lines[j]!) === 5 && lines[j]!.trim() === '},'); j++) {
        const line = lines[j]!;
        const target = depth(line) === 7 ? own : depth(line) === 10 ? item : undefined;
        const d = /^\t+Default:\s+(.*),$/.exec(line);
        const e = /^\t+Enum:\s+\[\]interface\{\}\{(.*)\},$/.exec(line);
        if ((d || e) && !target) problems.push(`${goName}.${key[1]}: a default or enum deeper than the model keeps`);
        if (d && target) target.default = goValue(d[1]!);
        if (e && target) target.enum = JSON.parse(`[${e[1]}]`) as unknown[];
      }
      if (!type) continue;
      const field = type.fields?.[key[1]!];
      if (!field) {
        problems.push(`${goName}.${key[1]}: not in the model`);
        continue;
      }
      compared++;
      const mine = { own: { default: field.default, enum: field.enum }, item: pick(field.items) };
      const theirs = { own, item };
      if (canonical(mine) !== canonical(theirs)) {
        problems.push(`${schemaNameOfGo(goName!)}.${key[1]}: generated ${canonical(theirs)}, model ${canonical(mine)}`);
      }
    }
    i = j;
  }
  return { compared, problems };
}

function pick(items: ItemModel | undefined): Facts {
  return { default: items?.default, enum: items?.enum as unknown[] | undefined };
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => v) ?? 'undefined';
}
