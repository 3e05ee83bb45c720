// The command dispatcher the interop scripts share: runs one named command, sets the exit code from its
// result, and makes sure the process ends even if a connection handle leaks.
export function dispatch(script, commands, command, usage) {
  const run = commands[command];
  if (!run) {
    console.error(`unknown command: ${command}\n${usage}`);
    process.exit(64);
  }
  run().then(
    (code) => { process.exitCode = code; },
    (err) => { console.error(err?.stack ?? err); process.exitCode = 1; },
  ).finally(() => {
    // why: everything is closed by now, so Node exits on its own; a leaked handle must not leave the
    // Java test waiting for its timeout
    setTimeout(() => {
      console.error(`${script}: handles still open after the command finished; forcing exit`);
      process.exit(process.exitCode ?? 1);
    }, 5000).unref();
  });
}
