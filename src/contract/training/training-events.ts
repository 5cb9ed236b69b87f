// The events a training run reports as it goes, and what a saved checkpoint tells, as plain data (the page receives
// them through the worker, run records are built from them).
import type { TeacherLabelSummary } from './teacher-labels.ts';
import type { TrainingRecipe } from './recipe.ts';
import type { StepReport } from './training-report.ts';
import type { Alarm } from './alarm-rules.ts';
import type { ProbeSnapshot } from './probes.ts';

/** The newest checkpoint of a run. */
export interface CheckpointInfo {
  step: number;
  recipe: TrainingRecipe;
  k: number;
  seed: number;
  /** Where it is kept, for messages. */
  store: string;
  name: string;
}

/** Progress of a training run, as it happens. */
export type TrainEvent =
  | {
      kind: 'start';
      startStep: number;
      resumedFrom: string | null;
      recipe: TrainingRecipe;
      k: number;
      seed: number;
      provenance: string;
      /**
       * Wall time of the steps before startStep (0 for a new run), as the resumed checkpoint recorded it; absent when
       * the checkpoint is from a version that did not record it.
       */
      trainingMs?: number;
    }
  | { kind: 'report'; report: StepReport }
  | { kind: 'checkpoint'; name: string; step: number; store: string }
  | { kind: 'probe'; snapshot: ProbeSnapshot }
  | { kind: 'alarm'; alarm: Alarm; stops: boolean }
  /** Batches of the run cached before its first step (the page): `done` of `total`. */
  | { kind: 'caching'; done: number; total: number }
  /** Something the user should know that changes nothing of the results (a cached batch tokenized again, ...). */
  | { kind: 'note'; note: string }
  /** The data's teacher labels, checked before a distillation run's first step (with a warning when they look squashed). */
  | { kind: 'teacher'; labels: TeacherLabelSummary; warning?: string };
