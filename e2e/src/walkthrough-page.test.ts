/** The walkthrough recorder's pure parts: splitting command lines, normalising, reading a page back. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalise, pageCommands, words } from './walkthrough-page.js';

describe('walkthrough page', () => {
  it('splits a command line as a shell does', () => {
    assert.deepEqual(words(`kubectl get cm -o jsonpath='{.a}{"\\n"}' "x y" a"b"c`), ['kubectl', 'get', 'cm', '-o', 'jsonpath={.a}{"\\n"}', 'x y', 'abc']);
    assert.deepEqual(words('kubectl get cm -o jsonpath={.a}{"\\n"}'), ['kubectl', 'get', 'cm', '-o', 'jsonpath={.a}{\\n}']);
    assert.throws(() => words("kubectl 'open"), /unclosed/);
  });

  it('normalises what changes between runs', () => {
    assert.equal(normalise('kubectl get pod/vitrine-7f6dc5bcd9-5jwl4 rs/vitrine-7f6dc5bcd9'), 'kubectl get pod/vitrine-<hash>-<id> rs/vitrine-<hash>');
    assert.equal(normalise('uid 93b5e02e-756f-4da1-a29d-9f42b0e29984 at https://127.0.0.1:38051/metrics'), 'uid <uid> at https://127.0.0.1:<port>/metrics');
    assert.equal(normalise('kubectl delete pod vitrine-w7d7l'), 'kubectl delete pod vitrine-<id>');
    assert.equal(normalise('kubectl create namespace ch36-autre'), 'kubectl create namespace ch36-autre');
  });

  it('reads the commands back from a page, here-documents included', () => {
    const md = "text\n\n```console\n$ kubectl get cm\nNAME\n$ kubectl apply -f - <<'EOF'\na: 1\nEOF\nok\n```\n";
    assert.deepEqual(pageCommands(md), ['kubectl get cm', "kubectl apply -f - <<'EOF'\na: 1\nEOF"]);
  });
});
