// The lesson's sentence as SPLADE vectors (steps 1 and 2 show them, the printed summary quotes them), a part of the
// lesson panel that renders into it: the sentence typed, its vectors under each k, and the form that asks for them.
import { html, nothing, type ReactiveControllerHost } from 'lit';
import { LESSON_SENTENCE, toPageFailure, type LessonVector } from '../../worker/api.ts';

export class LessonSentence {
  /** The sentence typed (the recording holds its own only). */
  text: string = LESSON_SENTENCE;
  vectors: LessonVector[] = [];
  error = '';
  busy = false;

  /** `encode` asks the lesson's source for a sentence's vectors (null: there is no source yet). */
  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly encode: (text: string) => Promise<LessonVector[]> | null,
  ) {}

  /** No vectors, no error and nothing under way: the sentence is still to be shown. */
  get pending(): boolean {
    return this.vectors.length === 0 && !this.busy && !this.error;
  }

  /** Forgets the vectors and their error (a new source). */
  reset(): void {
    this.vectors = [];
    this.error = '';
    this.host.requestUpdate();
  }

  /** The sentence cannot be shown (the recording cannot be read). */
  fail(message: string): void {
    this.error = message;
    this.host.requestUpdate();
  }

  /** Encodes the sentence. */
  async show(): Promise<void> {
    const vectors = this.encode(this.text);
    if (!vectors) return;
    this.busy = true;
    this.error = '';
    this.host.requestUpdate();
    try {
      this.vectors = await vectors;
    } catch (error) {
      this.error = toPageFailure(error).message;
    } finally {
      this.busy = false;
      this.host.requestUpdate();
    }
  }

  render(recorded: boolean) {
    return html`<form class="controls" @submit=${this._onSubmit}>
        <label for="sentence">Sentence</label>
        <input id="sentence" size="48" .value=${this.text} ?disabled=${recorded} />
        <button id="show-vector" type="submit" ?disabled=${this.busy || recorded}>Show its vector</button>
        ${recorded ? html`<span class="muted recorded-note">The recording holds this sentence only.</span>` : nothing}
      </form>
      ${this.busy ? html`<p class="muted" role="status">Encoding…</p>` : nothing}
      ${this.error ? html`<p class="error" role="alert" id="vector-error">${this.error}</p>` : nothing}`;
  }

  private readonly _onSubmit = (event: Event) => {
    event.preventDefault();
    this.text = (event.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('#sentence')!.value;
    void this.show();
  };
}
