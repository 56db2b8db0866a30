/**
 * The CEL library (@marcbachmann/cel-js), loaded on first need: importing it registers its
 * standard library, a large part of a fresh process's start, and a control plane with no CRD
 * rule, no admission policy and no webhook matchCondition never evaluates CEL. Every entry point
 * that compiles or evaluates CEL (a write of a CRD with rules or of an admission policy, the CRD
 * controller serving a CRD with rules, the admission steps reaching a policy or a matchCondition,
 * the policies' type checking) awaits `loadCel()` once; the synchronous compile and evaluation
 * code beneath reads the loaded module through `cel()`. No other module imports the library's
 * values (types only), so the library stays out of the start path and out of the cli bundle's
 * main chunk.
 */
type CelLibrary = typeof import('@marcbachmann/cel-js');

let library: CelLibrary | undefined;
let loading: Promise<CelLibrary> | undefined;

/** Loads the CEL library (once; later calls return the same settled promise). */
export function loadCel(): Promise<CelLibrary> {
  return (loading ??= import('@marcbachmann/cel-js').then((m) => (library = m)));
}

/**
 * The loaded CEL library, for the synchronous code that compiles and evaluates expressions;
 * throws when `loadCel()` has not completed (an entry point that forgot to await it).
 */
export function cel(): CelLibrary {
  if (!library) throw new Error('kplane: the CEL library is not loaded (await loadCel() before compiling or evaluating CEL)');
  return library;
}

/** Has anything asked for the CEL library in this process (loading it or loaded)? */
export function celLoaded(): boolean {
  return loading !== undefined;
}

/** Does a value (a CRD's spec, a schema) hold `x-kubernetes-validations` anywhere, i.e. CEL rules to compile? */
export function holdsCelRules(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsCelRules);
  if (value === null || typeof value !== 'object') return false;
  for (const [k, v] of Object.entries(value)) {
    if (k === 'x-kubernetes-validations' && Array.isArray(v) && v.length > 0) return true;
    if (holdsCelRules(v)) return true;
  }
  return false;
}
