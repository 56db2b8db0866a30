import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsv, parseTokenFile, staticTokenAuthenticator } from './token-file.js';

describe('token file', () => {
  it('parses kube-apiserver records: token, user, uid and quoted groups', () => {
    const tokens = parseTokenFile('t1,alice,u1,"dev,ops"\nt2,bob,u2\n\nt3,carol,u3,admins,ignored\n');
    assert.deepEqual(tokens.get('t1'), { username: 'alice', uid: 'u1', groups: ['dev', 'ops'] });
    assert.deepEqual(tokens.get('t2'), { username: 'bob', uid: 'u2', groups: [] });
    assert.deepEqual(tokens.get('t3')!.groups, ['admins']);
    assert.equal(tokens.size, 3);
  });

  it('refuses a record of fewer than 3 columns, skips empty tokens and keeps the last duplicate', () => {
    assert.throws(() => parseTokenFile('t1,alice\n', 'tokens.csv'), { message: "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2" });
    const warnings: string[] = [];
    const tokens = parseTokenFile(',nobody,u0\nt1,alice,u1\nt1,alice2,u2\n', 'f', (w) => warnings.push(w));
    assert.equal(tokens.size, 1);
    assert.equal(tokens.get('t1')!.username, 'alice2');
    assert.deepEqual(warnings, ["empty token has been found in token file 'f', record number '1'", "duplicate token has been found in token file 'f', record number '3'"]);
  });

  it('reads CSV as Go does: escaped quotes, CRLF, a BOM, multi-line quoted fields, bare quotes refused', () => {
    assert.deepEqual(parseCsv('\ufeffa,"b ""x""",c\r\nd,"e\nf",g'), [['a', 'b "x"', 'c'], ['d', 'e\nf', 'g']]);
    assert.throws(() => parseCsv('a,b"c,d'), /bare "/);
    assert.throws(() => parseCsv('a,"b'), /extraneous or missing "/);
  });

  it('authenticates its tokens for the API audiences only', async () => {
    const a = staticTokenAuthenticator(parseTokenFile('t1,alice,u1,dev\n'), ['api']);
    assert.deepEqual(await a.authenticateToken('t1', []), { user: { username: 'alice', uid: 'u1', groups: ['dev'] }, audiences: ['api'] });
    assert.equal(await a.authenticateToken('t2', []), undefined);
    assert.equal(await a.authenticateToken('t1', ['other']), undefined);
    assert.deepEqual((await a.authenticateToken('t1', ['other', 'api']))!.audiences, ['api']);
  });
});
