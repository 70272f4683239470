/**
 * The README is a front door: what the service is, how to run and test it, a tour of every
 * folder, links. The reference lives in docs/ (test/docs/readme.test.ts runs its shell blocks).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const README = readFileSync('README.md', 'utf8');
const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0');
const topLevelFolders = [...new Set(tracked.filter((path) => path.includes('/')).map((path) => path.split('/')[0]!))];
const srcFolders = readdirSync('src', { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);

describe('the README', () => {
  it('is at most 200 lines', () => {
    expect(README.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('names every top-level folder and every folder of src/ in its tour', () => {
    const tour = README.slice(README.indexOf('## A tour of the folders'));
    expect(topLevelFolders.length).toBeGreaterThan(5);
    expect(topLevelFolders.filter((folder) => !new RegExp(`^${folder.replace('.', '\\.')}/ `, 'm').test(tour))).toEqual([]);
    expect(srcFolders.length).toBeGreaterThan(15);
    expect(srcFolders.filter((folder) => !new RegExp(`^  ${folder}/ `, 'm').test(tour))).toEqual([]);
  });
});

describe('BENCHMARKS.md', () => {
  it('opens with the latest run, the history below it', () => {
    const headings = [...readFileSync('BENCHMARKS.md', 'utf8').matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
    expect(headings[0]).toMatch(/^Latest run/);
    expect(headings.indexOf('History')).toBeGreaterThan(0);
  });
});
