// @ts-check
// ESLint for src/, test/ and bench/ (`npm run lint`, after tsc): typescript-eslint's recommended
// rules without type information, so it stays quick; tsc's strict settings already do the typing.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', 'bench/.scratch/', 'test/artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // tsc reports unused locals and parameters in the same `npm run lint` (--noUnusedLocals
      // --noUnusedParameters) and accepts the `_` prefix this code uses for names kept only to be
      // left out (`const { date: _date, ...headers }`, `(_a, r) => …`); two reports of one fault
      // are noise.
      '@typescript-eslint/no-unused-vars': 'off',
      // An empty `catch {}` says "best effort, failure is fine" (a chdir that a worker thread may
      // refuse); an empty block anywhere else is still reported.
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
)
