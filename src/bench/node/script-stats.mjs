// What script-cost.mjs and bullmq-script-cost.mjs report after a round: from INFO commandstats (reset before the
// round), the scripts' whole time per job (evalsha, or fcall) and the commands they ran, per job.

/** INFO commandstats as {command: {calls, usec}}. */
export function commandstats(text) {
  const out = {};
  for (const line of text.split('\r\n')) {
    const m = line.match(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/);
    if (m) out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  }
  return out;
}

/** The per-job figures of a round that finished `finished` jobs, from its INFO commandstats text. */
export function perJob(text, finished) {
  const stats = commandstats(text);
  const scripts = stats.evalsha ?? stats.fcall;
  delete stats.evalsha;
  delete stats.fcall;
  delete stats.info;
  const inner = Object.values(stats).reduce((a, s) => ({ calls: a.calls + s.calls, usec: a.usec + s.usec }),
    { calls: 0, usec: 0 });
  return {
    evalsha_usec_per_job: +(scripts.usec / finished).toFixed(2),
    script_calls_per_job: +(scripts.calls / finished).toFixed(3),
    commands_per_job: +(inner.calls / finished).toFixed(2),
    commands_usec_per_job: +(inner.usec / finished).toFixed(2),
    top: Object.fromEntries(Object.entries(stats).sort((a, b) => b[1].usec - a[1].usec).slice(0, 20)
      .map(([c, s]) => [c, +(s.calls / finished).toFixed(2)])),
  };
}
