/**
 * The process of `runReadmeExamples`: `readme-runner.ts <plan> <marker>` imports each planned example file in turn,
 * in its working directory with its variables set (and unset again after it), and prints the marker before each so
 * the caller can tell their outputs apart.
 */
import { pathToFileURL } from 'node:url';

const plan = JSON.parse(process.argv[2]!) as Array<{ file: string; env: Record<string, string>; cwd: string }>;
const marker = process.argv[3]!;

for (const { file, env, cwd } of plan) {
  const before = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  process.chdir(cwd);
  process.stdout.write(marker);
  await import(pathToFileURL(file).href);
  for (const [name, value] of before) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
