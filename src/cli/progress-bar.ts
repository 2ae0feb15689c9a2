import { Presets, SingleBar } from 'cli-progress';
import type { CliIo } from './cli-io.js';

/** Progress of one long command: advanced per item, stopped once at the end. */
export interface ProgressBar {
  increment(count?: number): void;
  /** Changes the expected total (e.g. once a directory walk knows it). */
  setTotal(total: number): void;
  stop(): void;
}

export interface ProgressOptions {
  label: string;
  total: number;
  /** Milliseconds clock, for tests. */
  now?: () => number;
}

const seconds = (value: number) =>
  !Number.isFinite(value) ? '?' : value >= 90 ? `${Math.round(value / 60)}m` : `${Math.round(value)}s`;

/**
 * On a terminal, a cli-progress bar with percentage, count, rate and ETA, redrawn in place; when
 * the stream is not a TTY (a log file, CI), plain lines instead: one per 10 % step, at most one per
 * second otherwise, and a last one at the end, each with the same numbers.
 */
export function createProgressBar(stream: CliIo['stderr'], options: ProgressOptions): ProgressBar {
  const now = options.now ?? Date.now;
  const started = now();
  let total = Math.max(0, options.total);
  let value = 0;
  const rate = () => value / Math.max((now() - started) / 1000, 0.001);
  const numbers = () => {
    const perSecond = rate();
    const percent = total > 0 ? Math.floor((value / total) * 100) : 100;
    return {
      perSecond,
      percent,
      eta: perSecond > 0 ? (total - value) / perSecond : Number.POSITIVE_INFINITY,
    };
  };

  if (stream.isTTY) {
    const bar = new SingleBar(
      {
        stream,
        format: `${options.label} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 100,
        fps: 10,
        noTTYOutput: false,
      },
      Presets.shades_classic,
    );
    bar.start(total, 0, { rate: '0' });
    return {
      increment(count = 1) {
        value += count;
        bar.update(value, { rate: rate().toFixed(1) });
      },
      setTotal(next) {
        total = next;
        bar.setTotal(next);
      },
      stop() {
        bar.update(value, { rate: rate().toFixed(1) });
        bar.stop();
      },
    };
  }

  let nextStep = 10;
  let lastLine = started;
  const line = () => {
    const { perSecond, percent, eta } = numbers();
    lastLine = now();
    stream.write(
      `${options.label}: ${value}/${total} (${percent}%), ${perSecond.toFixed(1)}/s, ETA ${seconds(eta)}\n`,
    );
  };
  return {
    increment(count = 1) {
      value += count;
      const { percent } = numbers();
      if (percent >= nextStep && value < total) {
        nextStep = (Math.floor(percent / 10) + 1) * 10;
        line();
      } else if (now() - lastLine >= 1_000 && value < total) line();
    },
    setTotal(next) {
      total = next;
    },
    stop() {
      line();
    },
  };
}
