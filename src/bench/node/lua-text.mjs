// The text of a lua/ script as bull4j sends it, for the bench tools that run the scripts without the JVM
// (script-cost.mjs) or name them by SHA-1 (script-time.mjs).
import fs from 'node:fs';
import path from 'node:path';

const DIRECTIVE = /^--@(include|lazy) (\S+)\s*$/gm;

// lua/include/<name>.lua for a `--@lazy name` line, as LuaScript.java wraps it: inside lib_<name>(), which defines
// its functions on first use and returns them in a table; eager: defined once, when a Redis 7 library loads
function lazyInclude(inc, text, eager) {
  const names = [...text.matchAll(/^local function (\w+)/gm)].map((m) => `${m[1]} = ${m[1]}`).join(', ');
  if (eager) {
    return `local lazy_${inc} = (function()\n${text}\nreturn {${names}}\nend)()\n`
      + `local function lib_${inc}() return lazy_${inc} end\n`;
  }
  return `local lazy_${inc}\nlocal function lib_${inc}()\n  if not lazy_${inc} then\n${text}\n`
    + `    lazy_${inc} = {${names}}\n  end\n  return lazy_${inc}\nend\n`;
}

function expand(luaDir, text, eager) {
  return text.replace(DIRECTIVE, (_, how, inc) => {
    const included = expand(luaDir, fs.readFileSync(path.join(luaDir, 'include', `${inc}.lua`), 'utf8'), eager);
    return how === 'lazy' ? lazyInclude(inc, included, eager) : included;
  });
}

const read = (luaDir, file) => fs.readFileSync(path.join(luaDir, file), 'utf8');

/** lua/<name>.lua as LuaScript.java assembles it: the deadline guard, then the script, includes expanded in place. */
export function assemble(luaDir, name) {
  return expand(luaDir, read(luaDir, 'include/deadline.lua') + read(luaDir, `${name}.lua`), false);
}

/**
 * lua/<name>.lua as a Redis 7 library (an experiment, see docs/benchmarks.md): its includes run once, at load, and
 * the deadline guard and the script's own lines run per FCALL. Returns [function name, library text].
 */
export function library(luaDir, name) {
  const text = read(luaDir, `${name}.lua`);
  const includes = [...text.matchAll(DIRECTIVE)].map((m) => m[0]).join('\n');
  const body = text.replace(DIRECTIVE, '');
  const fname = `b4jexp_${name}`;
  return [fname, `#!lua name=${fname}\n${expand(luaDir, includes, true)}\nlocal function bull4j_run(KEYS, ARGV)\n`
    + `${read(luaDir, 'include/deadline.lua')}\n${body}\nend\n`
    + `redis.register_function('${fname}', bull4j_run)\n`];
}
