// ESLint (`npm run lint:code`): typescript-eslint's recommended rules on all our code, eslint-plugin-lit on the elements.
import js from '@eslint/js';
import lit from 'eslint-plugin-lit';
import tseslint from 'typescript-eslint';

/** A string-keyed table starts as a Map or Object.create(null), never as `{}` (see the src/ block below). */
const TOKEN_KEYED_TABLES = [
  {
    selector:
      "VariableDeclarator[init.type='ObjectExpression'][init.properties.length=0][id.typeAnnotation.typeAnnotation.typeName.name='Record']",
    message: 'a string-keyed table starts as a Map or Object.create(null), not {} (its keys may be tokens or ids)',
  },
  {
    selector:
      "VariableDeclarator[init.type='TSAsExpression'][init.expression.type='ObjectExpression'][init.expression.properties.length=0][init.typeAnnotation.typeName.name='Record']",
    message: 'a string-keyed table starts as a Map or Object.create(null), not {} (its keys may be tokens or ids)',
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'public/', '.artifacts/', 'coverage/'] },
  {
    files: ['**/*.{ts,mjs,js}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // TypeScript already reports undefined names (with the DOM, WebWorker, WebGPU and Node types of tsconfig.json);
      // ESLint's copy would need every global listed again.
      'no-undef': 'off',
      // `_name` marks a parameter or binding kept on purpose (an interface's signature, a destructured rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Output folders are made one level at a time by src/io/make-folders-node.ts (Node's recursive mkdir spins for ever
    // on paths such as /proc/x): no other source file makes a folder itself.
    files: ['src/**/*.ts'],
    ignores: ['src/io/make-folders-node.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'node:fs/promises'].map((name) => ({
            name,
            importNames: ['mkdir', 'mkdirSync'],
            message: 'make folders with makeFolders or makeOutputFolder (src/io/make-folders-node.ts)',
          })),
        },
      ],
    },
  },
  {
    // A token, id, file name or user string never keys a plain object: ModernBERT's vocabulary holds `constructor`,
    // `toString` and `valueOf`, and `x[key] ?? 0` on {} finds Object.prototype's members (`__proto__` even replaces the
    // prototype). A string-keyed table starts as a Map or Object.create(null), never as `{}`.
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...TOKEN_KEYED_TABLES] },
  },
  {
    // src/contract/ is plain data and pure rules that every layer shares: nothing that waits, reads the clock or keeps
    // state (a run's recorder and its alarm watcher live in src/app/training/). Its only classes are errors.
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...TOKEN_KEYED_TABLES,
        {
          selector: ':function[async=true]',
          message: 'contract/ is plain data and pure rules: nothing async (put it in app/ or below)',
        },
        {
          selector: "NewExpression[callee.name='Date'], CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'contract/ never reads the clock: take the time as an argument from the caller',
        },
        {
          selector: ':matches(ClassDeclaration, ClassExpression):not([superClass.name=/Error$/])',
          message: 'contract/ keeps no state: its only classes are Error subclasses (a stateful helper belongs in app/)',
        },
      ],
    },
  },
  {
    // GpuContext.dispatch keeps a compute pass open on its encoder: a copy or clear recorded past it would meet a locked
    // encoder. They go through ctx.copy and ctx.clear, which end the pass first.
    files: ['src/**/*.ts', 'tests/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['src/gpu/context.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['copyBufferToBuffer', 'clearBuffer', 'beginComputePass'].map((property) => ({
          property,
          message: 'record copies, clears and dispatches through GpuContext (ctx.copy, ctx.clear, ctx.dispatch)',
        })),
      ],
    },
  },
  {
    // Tests forge hostile headers and read free-form reference JSON on purpose: `any` is the honest type there.
    files: ['tests/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/ui/**/*.ts', 'tests/browser/**/*.ts'],
    extends: [lit.configs['flat/recommended']],
  },
);
