#!/usr/bin/env node
// The kplane command. This file is committed (not built) so that npm links it as a bin at
// install time, before the build of dist/ (the root `prepare` of a clean `npm ci`) exists.
// It runs dist/bundle/ (the command bundled by scripts/bundle.mjs, which loads in a fraction of
// the time) while every package it was made from is still as built then, else dist/main.js.
import { readFileSync, statSync } from 'node:fs';
import module from 'node:module';

// Node 22.1 and later keep V8's compiled code of the modules on disk between runs (Node 20 has no such cache).
module.enableCompileCache?.();

function bundleCurrent() {
  try {
    const { built } = JSON.parse(readFileSync(new URL('../dist/bundle/stamp.json', import.meta.url), 'utf8'));
    const base = new URL('../', import.meta.url);
    for (const [file, mtimeMs] of Object.entries(built)) if (statSync(new URL(file, base)).mtimeMs !== mtimeMs) return false;
    return Object.keys(built).length > 0;
  } catch {
    return false;
  }
}

await import(process.env.KPLANE_NO_BUNDLE !== '1' && bundleCurrent() ? '../dist/bundle/main.js' : '../dist/main.js');
