// One lint setup for every workspace.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      '**/drizzle/**',
      'test-results/**',
      'playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Type-aware rules where a lost rejection costs most: a promise nobody awaits or catches, or one handed to a
    // place that expects a plain callback (an event handler, a timer), fails without a trace.
    files: ['apps/server/**/*.ts', 'apps/devsim/**/*.ts', 'apps/console/**/*.{ts,tsx}', 'e2e/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['apps/console/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // Test fakes and kits live under apps/server/src/test/; product code never imports them.
    files: ['apps/server/src/**/*.ts'],
    // The reliability suite (src/reliability/) is test code too: it shares the kits of src/test/.
    ignores: ['apps/server/src/**/*.test.ts', 'apps/server/src/test/**', 'apps/server/src/reliability/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)test/',
              message: 'Product code must not import test support (apps/server/src/test/).',
            },
            { regex: '^vitest', message: 'Product code must not import vitest.' },
          ],
        },
      ],
    },
  },
);
