#!/usr/bin/env node
// Smoke run on other Node.js releases, as a new user would go: `node scripts/smoke-node.mjs 22 24`.
// For each major it takes Node itself from the npm registry (the node-<os>-<arch> package), copies
// this checkout, and under that Node runs `npm ci` (no EBADENGINE allowed), `npm start`, the README's
// walkthrough and offline refine, `npx persona-refine --help`, and the SDK README's quick start
// (offline, through the rules provider). Only npm's registry is needed; native modules are compiled
// from source.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const majors = process.argv.slice(2);
if (majors.length === 0 || majors.some((major) => !/^\d+$/.test(major))) {
  process.stderr.write('usage: node scripts/smoke-node.mjs <major> [<major>…]   e.g. 22 24\n');
  process.exit(2);
}

const step = (text) => process.stdout.write(`\n[smoke] ${text}\n`);

function check(condition, message, output = '') {
  if (!condition) throw new Error(`${message}${output ? `\n--- output ---\n${output}` : ''}`);
}

function run(command, args, options) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...options });
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
}

async function runAsync(command, args, options) {
  try {
    return (await promisify(execFile)(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options })).stdout;
  } catch (error) {
    throw new Error(`${command} ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
}

/** The sh (or ts) code block under a README heading. */
function codeBlock(readme, heading, language) {
  const section = readme.slice(readme.indexOf(`${heading}\n`));
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  check(section.length < readme.length && match, `no ${language} block under "${heading}"`);
  return match[1];
}

/** `npm start` in its own process group, so stopping it stops the server under npm too. */
async function npmStart(app, env) {
  const child = spawn('npm', ['start'], { cwd: app, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {}
  };
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not come up in 240 s:\n${output}`)), 240_000);
    const poll = setInterval(() => {
      const match = /Persona Studio at (http:\/\/127\.0\.0\.1:\d+)\/studio\//.exec(output);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(match[1]);
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
  return { base, output: () => output, stop };
}

async function smoke(major, work) {
  const platform = `${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  step(`Node ${major}: node-${platform}@${major} from the npm registry`);
  const nodeDir = join(work, `node-${major}`);
  run('npm', ['install', '--prefix', nodeDir, '--no-save', '--no-audit', '--no-fund', `node-${platform}@${major}`]);
  const nodeHome = join(nodeDir, 'node_modules', `node-${platform}`);
  const version = run(join(nodeHome, 'bin', 'node'), ['--version']).trim();
  check(version.startsWith(`v${major}.`), `expected Node ${major}, got ${version}`);

  const app = join(work, `app-${major}`);
  mkdirSync(app);
  // The checkout as git sees it (tracked and new files, not what .gitignore excludes): a clone.
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  execFileSync('tar', ['--null', '--ignore-failed-read', '-T', '-', '-cf', join(work, `app-${major}.tar`)], { cwd: root, input: files, stdio: ['pipe', 'ignore', 'ignore'] });
  run('tar', ['-xf', join(work, `app-${major}.tar`), '-C', app]);

  // The Node under test first on PATH; native modules are built against its own headers.
  const env = { ...process.env, PATH: `${join(nodeHome, 'bin')}:${process.env.PATH}`, npm_config_nodedir: nodeHome, NO_UPDATE_NOTIFIER: '1' };
  step(`Node ${version}: npm ci`);
  const install = run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: app, env });
  process.stdout.write(install);
  check(!/EBADENGINE/.test(install), 'npm ci printed EBADENGINE', install);

  step(`Node ${version}: npm start`);
  const server = await npmStart(app, {
    ...env,
    PORT: '0',
    DATABASE_URL: `sqlite:${join(work, `smoke-${major}.sqlite`)}`,
    LOG_FORMAT: 'json',
  });
  try {
    const key = /\b(prk_[A-Za-z0-9_-]{43})\b/.exec(server.output())?.[1];
    check(key, 'the first start printed no API key', server.output());
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    check(metrics.includes(`nodejs_version_info{version="${version}"`), `the server does not run on ${version}`, metrics.slice(0, 2000));

    const readme = readFileSync(join(app, 'README.md'), 'utf8');
    const shell = { ...env, PRK: key, BASE: server.base };
    const sh = (script) => run('bash', ['-euo', 'pipefail', '-c', script], { cwd: app, env: shell });

    step(`Node ${version}: the README walkthrough`);
    const walkthrough = codeBlock(readme, '## Walkthrough', 'sh').replace(/^export (PRK|BASE)=.*$/gm, '');
    const walked = sh(walkthrough);
    process.stdout.write(walked);
    // curl -s prints bodies without a final newline, so a status line may follow one on the same line.
    check(/HTTP\/1\.1 200 OK\r?\n/.test(walked) && /^etag: "1"\r?$/im.test(walked), 'GET persona: no 200 with ETag "1"', walked);
    check(/"name":"Friendly support \(EU\)"/.test(walked), 'PATCH did not rename the persona', walked);
    check(/HTTP\/1\.1 204 No Content\r?\n/.test(walked), 'DELETE did not answer 204', walked);

    step(`Node ${version}: the README's offline refine`);
    const offline = codeBlock(readme, '### Try it offline first', 'sh');
    const refined = sh(offline);
    process.stdout.write(`${refined}\n`);
    for (const expected of offline.match(/^# .*$/gm).map((line) => line.slice(2))) {
      check(refined.toLowerCase().includes(expected.toLowerCase()), `the refine's answer lacks what the README shows: ${expected}`, refined);
    }

    step(`Node ${version}: npx persona-refine --help`);
    const help = run('npx', ['--no-install', 'persona-refine', '--help'], { cwd: app, env });
    check(/^Usage: persona-refine <command>$/m.test(help), 'the CLI did not print its usage', help);

    step(`Node ${version}: the SDK quick start`);
    // In the clone the workspace link stands in for the installed tarball (test/docs/sdk-install.test.ts installs that).
    const sdkReadme = readFileSync(join(app, 'sdk', 'README.md'), 'utf8');
    writeFileSync(join(app, 'quick.mjs'), codeBlock(sdkReadme, '## Quick start', 'js'));
    const started = await runAsync('node', ['quick.mjs'], { cwd: app, env: { ...env, PERSONA_REFINE_API_KEY: key, PERSONA_REFINE_URL: server.base } });
    process.stdout.write(started);
    const shown = codeBlock(sdkReadme, '## Quick start', 'text');
    check(started === shown, 'the quick start did not print what sdk/README.md shows', started);
  } finally {
    server.stop();
  }
  step(`Node ${version}: passed`);
}

const work = mkdtempSync(join(tmpdir(), 'persona-refine-smoke-'));
let failed = false;
for (const major of majors) {
  try {
    await smoke(major, work);
  } catch (error) {
    failed = true;
    process.stderr.write(`\n[smoke] Node ${major} FAILED: ${error.message}\n`);
  }
}
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
