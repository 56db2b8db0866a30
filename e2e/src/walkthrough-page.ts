/**
 * The recorder behind docs/walkthrough.md: runs shell-like kubectl command lines against a
 * kplane, keeps each command with the output it really gave, renders the page in Markdown, and
 * compares a page's commands with the ones a run made (generated names, uids, ports and ages
 * normalised), so the page cannot drift from what kplane does.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { kubectl, type KubectlResult } from './harness.js';

/** Splits a shell-like command line into words: whitespace separates, '…' and "…" quote. */
export function words(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unclosed ' in ${line}`);
      cur += line.slice(i + 1, end);
      i = end;
      started = true;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && (line[j + 1] === '"' || line[j + 1] === '\\')) j++;
        cur += line[j];
      }
      if (j >= line.length) throw new Error(`unclosed " in ${line}`);
      i = j;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(cur);
      cur = '';
      started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (started) out.push(cur);
  return out;
}

/**
 * Normalises what changes from one run to the next: uids, generated name suffixes (pods,
 * ReplicaSets), loopback ports, timestamps, ages, resourceVersions and tokens.
 */
export function normalise(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/\b([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-[bcdfghjklmnpqrstvwxz2456789]{8,10}-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g, '$1-<hash>-<id>')
    .replace(/\b([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*)-[bcdfghjklmnpqrstvwxz2456789]{8,10}\b/g, '$1-<hash>')
    .replace(/\b(vitrine|hello|other)-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g, '$1-<id>')
    .replace(/\b(apiserver-)[a-z0-9]{26}\b/g, '$1<id>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
    .replace(/\b\d\d:\d\d:\d\d\b/g, '<time>')
    .replace(/\b\d+(?:ms|s|m)\b/g, '<age>')
    .replace(/resourceVersion":"\d+"/g, 'resourceVersion":"<rv>"')
    .replace(/\s+$/gm, '');
}

/** One block of the page: prose, a heading, or commands with their outputs. */
type Block = { kind: 'text'; text: string } | { kind: 'heading'; level: number; text: string } | { kind: 'shell'; steps: { command: string; output: string }[] };

/** Options of one recorded command. */
export interface RunOptions {
  /** Standard input (shown as a here-document). */
  input?: string;
  /** The command is expected to fail (exit code not 0). */
  fails?: boolean;
  /** Turns the real output into what the page shows (e.g. keep a few lines, as a grep would). */
  show?: (out: string) => string;
  /** What the page shows instead of the command (e.g. a pipe that feeds `input`). */
  as?: string;
}

/** Collects the walkthrough's blocks as the experiments run. */
export class Page {
  private readonly blocks: Block[] = [];
  constructor(private readonly kubeconfig: () => string) {}

  /** A heading (## for a seed, ### for an experiment). */
  heading(level: number, text: string): void {
    this.blocks.push({ kind: 'heading', level, text });
  }

  /** A paragraph of prose. */
  say(text: string): void {
    this.blocks.push({ kind: 'text', text: text.trim().replace(/\s*\n\s*/g, ' ') });
  }

  /** Records a command that is not kubectl (run by the test itself) with the output it gave. */
  record(command: string, output: string): void {
    const last = this.blocks[this.blocks.length - 1];
    const step = { command, output };
    if (last?.kind === 'shell') last.steps.push(step);
    else this.blocks.push({ kind: 'shell', steps: [step] });
  }

  /**
   * Runs `line` (which starts with `kubectl`) against the kplane, records it with its output
   * (stdout then stderr, as a terminal shows them) and returns the result; fails when the exit
   * code is not the expected one.
   */
  async run(line: string, opts: RunOptions = {}): Promise<KubectlResult> {
    const [bin, ...args] = words(line);
    if (bin !== 'kubectl') throw new Error(`not a kubectl command: ${line}`);
    const r = await kubectl(this.kubeconfig(), args, opts.input);
    if ((r.code !== 0) !== !!opts.fails) throw new Error(`${line} exited with ${r.code}:\n${r.stderr}${r.stdout}`);
    const shown = opts.as !== undefined ? opts.as : opts.input !== undefined ? `${line} <<'EOF'\n${opts.input.replace(/\n$/, '')}\nEOF` : line;
    const out = r.stdout + r.stderr;
    this.record(shown, opts.show ? opts.show(out) : out);
    return r;
  }

  /**
   * A page of its own for a part run at the same time as others (its blocks kept apart), to be
   * put back in its place with {@link Page.append} once it is done.
   */
  fork(): Page {
    return new Page(this.kubeconfig);
  }

  /** Appends the blocks of a forked page, in their order. */
  append(part: Page): void {
    this.blocks.push(...part.blocks);
  }

  /** The page in Markdown. */
  markdown(): string {
    const parts: string[] = [];
    for (const b of this.blocks) {
      if (b.kind === 'heading') parts.push(`${'#'.repeat(b.level)} ${b.text}`);
      else if (b.kind === 'text') parts.push(wrap(b.text));
      else {
        const body = b.steps.map((s) => `$ ${s.command}\n${s.output.replace(/\n$/, '')}`.replace(/\n$/, '')).join('\n');
        parts.push('```console\n' + body + '\n```');
      }
    }
    return parts.join('\n\n') + '\n';
  }

  /** The commands of this run, normalised. */
  commands(): string[] {
    return this.blocks.flatMap((b) => (b.kind === 'shell' ? b.steps.map((s) => normalise(s.command)) : []));
  }
}

/** The commands of a page written by {@link Page.markdown}, normalised (here-documents included). */
export function pageCommands(markdown: string): string[] {
  const out: string[] = [];
  const lines = markdown.split('\n');
  let inShell = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l === '```console') inShell = true;
    else if (l === '```') inShell = false;
    else if (inShell && l.startsWith('$ ')) {
      let cmd = l.slice(2);
      if (cmd.endsWith("<<'EOF'")) {
        while (i + 1 < lines.length && lines[i] !== 'EOF') cmd += '\n' + lines[++i];
      }
      out.push(normalise(cmd));
    }
  }
  return out;
}

/** Writes the page to `path` when `write`, else fails if the page's commands differ from this run's. */
export async function writeOrCompare(page: Page, path: string, write: boolean): Promise<void> {
  if (write) {
    await writeFile(path, page.markdown());
    return;
  }
  const onPage = pageCommands(await readFile(path, 'utf8'));
  const ran = page.commands();
  for (let i = 0; i < Math.max(onPage.length, ran.length); i++) {
    if (onPage[i] !== ran[i]) {
      throw new Error(`docs/walkthrough.md has drifted at command ${i + 1}:\n  page: ${onPage[i] ?? '(none)'}\n  ran:  ${ran[i] ?? '(none)'}\nrun the walkthrough test with KPLANE_WRITE_WALKTHROUGH=1 to write it again`);
    }
  }
}

/** Wraps prose at about 96 columns. */
function wrap(text: string): string {
  const out: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > 96) {
      out.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out.join('\n');
}
