// Prints a model's SPLADE expansions of ten sentences on ten topics (none of them in the demo's pretraining text): for
// each, the 20 heaviest terms that are not the sentence's own tokens. Usage: topic-expansions.ts <model-dir> [k ...]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One sentence per topic, written for this check. */
export const TOPIC_SENTENCES: Record<string, string> = {
  medicine: 'the doctor gave the patient a vaccine against the fever',
  sea: 'the ship sailed out of the harbor into the stormy sea',
  music: 'she played a song on the guitar at the concert',
  sport: 'the striker kicked the ball past the keeper to score a goal',
  weather: 'heavy rain and strong wind are forecast for tomorrow',
  food: 'he baked fresh bread with flour, butter and sugar',
  computers: 'the software crashed and the computer lost its memory',
  money: 'the bank raised the interest rate on every loan',
  animals: 'the dog chased the cat up the tree',
  law: 'the judge asked the jury to reach a verdict in the trial',
};

function main(): void {
  const [model, ...ks] = process.argv.slice(2);
  if (!model) throw new Error('usage: topic-expansions.ts <model-dir> [k ...]');
  const vocab = readFileSync(join(model, 'vocab.txt'), 'utf8').split('\n');
  const dir = mkdtempSync(join(tmpdir(), 'topic-expansions-'));
  try {
    const input = join(dir, 'in.jsonl');
    const topics = Object.keys(TOPIC_SENTENCES);
    writeFileSync(input, topics.map((topic) => JSON.stringify({ _id: topic, text: TOPIC_SENTENCES[topic] })).join('\n') + '\n');
    const cli = join(import.meta.dirname, '..', '..', 'bin', 'splade-lab.mjs');
    // the sentences' own token ids: a term among them is not an expansion
    const own = execFileSync(process.execPath, [cli, 'tokenize', model], {
      input: topics.map((topic) => TOPIC_SENTENCES[topic]).join('\n') + '\n',
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map((line) => new Set((JSON.parse(line) as { ids: number[] }).ids));
    for (const k of ks.length ? ks : ['1']) {
      const output = join(dir, `k${k}.jsonl`);
      execFileSync(
        process.execPath,
        [cli, 'encode', '--model', model, '--in', input, '--out', output, '--format', 'qdrant', '--k', k],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      console.log(`k = ${k}`);
      for (const [i, line] of readFileSync(output, 'utf8').trim().split('\n').entries()) {
        const record = JSON.parse(line) as { id: string; vector: { indices: number[]; values: number[] } };
        const terms = record.vector.indices
          .map((id, j) => ({ id, term: vocab[id], weight: record.vector.values[j] }))
          .sort((a, b) => b.weight - a.weight);
        const expansions = terms.filter((t) => !own[i].has(t.id)).slice(0, 20);
        console.log(
          `  ${record.id} (${terms.length} active): ${expansions.map((t) => `${t.term} ${t.weight.toFixed(2)}`).join(', ')}`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
