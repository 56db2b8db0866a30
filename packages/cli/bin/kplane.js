#!/usr/bin/env node
// The kplane command. This file is committed (not built) so that npm links it as a bin at
// install time, before the build of dist/ (the root `prepare` of a clean `npm ci`) exists.
import '../dist/main.js';
