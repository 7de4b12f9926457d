import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { cacheDir } from '../../../../lib/cache-dir.js';
import { appRoot, langPath, type OcrEngine, type OcrModel } from './ocr-models.js';

/** Where the native engine's parts are: the helper program, and the directory holding eng.traineddata. */
export type NativeTesseract = { binary: string; tessdata: string };

/** Why the native engine cannot run here (OCR_ENGINE=auto then reads with the wasm build). */
export class NativeTesseractUnavailable extends Error {
  override name = 'NativeTesseractUnavailable';
}

const SOURCE = join('src', 'modules', 'recognition', 'engines', 'local', 'native', 'tesseract-helper.cpp');

function sha(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex').slice(0, 16);
}

/** Writes a file whole or not at all: several threads or processes may prepare the same file at once. */
function writeOnce(path: string, make: (tmp: string) => void) {
  if (existsSync(path)) return;
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    make(tmp);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * The helper program: TESSERACT_HELPER when set (a prebuilt one, as in the Docker image), otherwise
 * compiled once from its source against the machine's libtesseract into ~/.cache/shelf-service/bin,
 * named by a hash of the source and the library's version, so an upgrade of either builds anew.
 */
function helperBinary(): string {
  const given = process.env.TESSERACT_HELPER;
  if (given) {
    if (!existsSync(given)) throw new NativeTesseractUnavailable(`TESSERACT_HELPER=${given} does not exist`);
    return given;
  }
  const sourcePath = join(appRoot(), SOURCE);
  if (!existsSync(sourcePath)) throw new NativeTesseractUnavailable(`${SOURCE} is not in this installation`);
  let flags: string[];
  let version: string;
  try {
    version = execFileSync('pkg-config', ['--modversion', 'tesseract'], { encoding: 'utf8' }).trim();
    flags = execFileSync('pkg-config', ['--cflags', '--libs', 'tesseract', 'lept'], { encoding: 'utf8' })
      .trim()
      .split(/\s+/);
  } catch {
    throw new NativeTesseractUnavailable(
      'libtesseract is not installed (pkg-config knows no "tesseract"; Debian: libtesseract-dev)',
    );
  }
  const source = readFileSync(sourcePath);
  const dir = join(cacheDir(), 'bin');
  const binary = join(dir, `tesseract-helper-${sha(Buffer.concat([source, Buffer.from(version)]))}`);
  mkdirSync(dir, { recursive: true });
  writeOnce(binary, (tmp) => {
    try {
      execFileSync('g++', ['-O2', '-std=c++17', '-o', tmp, sourcePath, ...flags], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (err) {
      const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
      throw new NativeTesseractUnavailable(`the helper did not compile: ${stderr || String(err)}`);
    }
  });
  return binary;
}

/**
 * The model the wasm engine reads (models/tesseract/eng-fast, gzipped in the repository), unpacked
 * once beside the helper, since libtesseract reads only plain traineddata. The same file, so both
 * engines read with the same network. Not in the shared temporary directory: another user could put
 * a file of their own there first, and the helper would read it.
 */
function tessdataDir(): string {
  const gz = readFileSync(join(langPath('fast'), 'eng.traineddata.gz'));
  const dir = join(cacheDir(), `tessdata-${sha(gz)}`);
  mkdirSync(dir, { recursive: true });
  writeOnce(join(dir, 'eng.traineddata'), (tmp) => writeFileSync(tmp, gunzipSync(gz)));
  return dir;
}

let resolved: NativeTesseract | NativeTesseractUnavailable | undefined;

/**
 * The native engine's parts for `model`, prepared on first use (a compile of ~2 s, once per machine);
 * throws NativeTesseractUnavailable when it cannot run here, or cannot read that model.
 */
export function nativeTesseract(model: OcrModel = 'fast'): NativeTesseract {
  if (model !== 'fast') throw new NativeTesseractUnavailable(`it reads the fast model only, not ${model}`);
  if (!resolved) {
    try {
      resolved = { binary: helperBinary(), tessdata: tessdataDir() };
    } catch (err) {
      resolved =
        err instanceof NativeTesseractUnavailable ? err : new NativeTesseractUnavailable(`${(err as Error).message}`);
    }
  }
  if (resolved instanceof Error) throw resolved;
  return resolved;
}

/** The engine that reads for `engine` and `model` here: auto becomes native where it can run, wasm elsewhere. */
export function resolveOcrEngine(engine: OcrEngine, model: OcrModel): 'native' | 'wasm' {
  if (engine !== 'auto') return engine;
  try {
    nativeTesseract(model);
    return 'native';
  } catch (err) {
    if (err instanceof NativeTesseractUnavailable) return 'wasm';
    throw err;
  }
}
