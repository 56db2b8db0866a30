/** The mutable form of the model the import stages fill in before it is written out. */
import type { FieldModel, TypeModel } from '@kplane/api/model';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A field being built. */
export type DraftField = Mutable<FieldModel>;

/** A type being built. */
export interface DraftType extends Omit<Mutable<TypeModel>, 'fields' | 'embedded' | 'protoFields'> {
  fields?: Record<string, DraftField>;
  embedded?: { proto: number; type: string }[];
  protoFields?: Record<string, readonly [number, string]>;
}

/** Collects the problems of one import run; the run fails listing them all. */
export class Problems {
  readonly list: string[] = [];
  /** Records one problem. */
  add(message: string): void {
    this.list.push(message);
  }
  /** Throws one error listing every recorded problem, if any. */
  throwIfAny(stage: string): void {
    if (this.list.length === 0) return;
    const shown = this.list.slice(0, 200).map((p) => `  - ${p}`).join('\n');
    const more = this.list.length > 200 ? `\n  … and ${this.list.length - 200} more` : '';
    throw new Error(`${stage}: ${this.list.length} problem(s)\n${shown}${more}`);
  }
}
