// The Node side of CronDifferentialTest: reads cases from the JSON file named by argv[2] (an array of
// {pattern, tz, from, count}) and prints one JSON line: for each case, cron-parser's next `count` times in epoch
// ms, or {error} when it refuses the pattern or stops early. cron-parser is the copy bullmq 6.7.0 resolves.
import { readFileSync } from 'node:fs';
import { CronExpressionParser } from 'cron-parser';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = cases.map(({ pattern, tz, from, count }) => {
  const times = [];
  try {
    const it = CronExpressionParser.parse(pattern, { currentDate: new Date(from), tz });
    for (let i = 0; i < count; i++) {
      times.push(it.next().getTime());
    }
    return { times };
  } catch (e) {
    return { times, error: String(e?.message ?? e) };
  }
});
console.log(JSON.stringify(out));
