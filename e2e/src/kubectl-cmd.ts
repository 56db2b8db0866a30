/**
 * The assertions kubectl's own command tests make, over the real kubectl: an object's fields
 * through a go-template, what `kubectl describe` prints (its sections, its Events), and the
 * page size of the lists it requests (`--chunk-size`). Shared by the kubectl-cmd-*.test.ts files.
 */
import assert from 'node:assert/strict';
import { kubectl, kubectlOk } from './harness.js';

/** The kubectl runners of one suite's kubeconfig. */
export interface KubectlCmd {
  /** Runs kubectl; fails with its output unless it exits 0; resolves with its stdout. */
  ok(args: string[], input?: string): Promise<string>;
  /** Runs kubectl that must fail; resolves with its stderr and stdout. */
  fails(args: string[], input?: string): Promise<string>;
  /** Both streams of a successful run (kubectl writes warnings and -v logs to stderr). */
  all(args: string[], input?: string): Promise<string>;
  /** `kubectl get TARGET -o go-template=TEMPLATE` equals `expected`. */
  getAssert(target: string, template: string, expected: string | RegExp): Promise<void>;
  /** `kubectl describe KIND NAME` (NAME '' for every object) prints each of `sections`. */
  describeAssert(kind: string, name: string, sections: string[]): Promise<void>;
  /** Events are printed by default and with --show-events=true, not with --show-events=false. */
  describeEventsAssert(kind: string, name: string): Promise<void>;
  /**
   * `kubectl describe RESOURCE` lists RESOURCE and each of `related` 500 at a time by default
   * and 10 at a time with --chunk-size=10.
   */
  describeChunkSizeAssert(resource: string, related: string[], args?: string[]): Promise<void>;
}

/** The items' names of a list as the scripts print them: `a:b:`. */
export const NAMES = '{{range.items}}{{.metadata.name}}:{{end}}';

/** kubectl runners and assertions against `kubeconfig` (read each time: valid inside tests). */
export function kubectlCmd(kubeconfig: () => string): KubectlCmd {
  const run = (args: string[], input?: string) => kubectl(kubeconfig(), args, input);
  const self: KubectlCmd = {
    ok: (args, input) => kubectlOk(kubeconfig(), args, input),
    async fails(args, input) {
      const r = await run(args, input);
      assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} succeeded:\n${r.stdout}`);
      return r.stderr + r.stdout;
    },
    async all(args, input) {
      const r = await run(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
      return r.stderr + r.stdout;
    },
    async getAssert(target, template, expected) {
      const out = await self.ok(['get', ...target.split(' '), '-o', `go-template=${template}`]);
      if (typeof expected === 'string') assert.equal(out, expected, `get ${target} ${template}`);
      else assert.match(out, expected, `get ${target} ${template}`);
    },
    async describeAssert(kind, name, sections) {
      const out = await self.ok(['describe', kind, ...(name ? [name] : [])]);
      for (const s of sections) assert.ok(out.includes(s), `describe ${kind} ${name} prints ${s}:\n${out}`);
    },
    async describeEventsAssert(kind, name) {
      const target = [kind, ...(name ? [name] : [])];
      assert.match(await self.ok(['describe', ...target]), /^Events:/m);
      assert.match(await self.ok(['describe', ...target, '--show-events=true']), /^Events:/m);
      assert.doesNotMatch(await self.ok(['describe', ...target, '--show-events=false']), /^Events:/m);
    },
    async describeChunkSizeAssert(resource, related, args = []) {
      const requests = async (extra: string[]) => {
        const r = await run(['describe', resource, '--show-events=true', '-v=6', ...args, ...extra]);
        assert.equal(r.code, 0, r.stderr);
        return r.stderr.split('\n').filter((l) => / GET https:/.test(l)).join('\n');
      };
      const byDefault = await requests([]);
      assert.match(byDefault, new RegExp(`/${resource}\\?limit=500 200 OK`), byDefault);
      for (const r of related) assert.match(byDefault, new RegExp(`/${r}\\?.*limit=500 200 OK`), byDefault);
      const custom = await requests(['--chunk-size=10']);
      assert.match(custom, new RegExp(`/${resource}\\?limit=10 200 OK`), custom);
      for (const r of related) assert.match(custom, new RegExp(`/${r}\\?.*limit=10 200 OK`), custom);
    },
  };
  return self;
}
