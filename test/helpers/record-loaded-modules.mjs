// `node --import <this file>`: records the modules the process imports (loaded-modules-hooks.mjs).
import { register } from 'node:module';

register('./loaded-modules-hooks.mjs', import.meta.url);
