/**
 * Arco's Space keys the children it wraps by position unless they carry a key of their own. A child shown on a
 * condition (`{live && <Badge/>}`) therefore shifts every later one when it comes or goes, and React mounts those
 * again: an open confirmation or menu among them closes under the user's cursor (the OTA task page did this while
 * its live badge appeared). This check reads every component and names each popup in a Space that follows such a
 * conditional child without a key.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname);
/** Components that hold open state of their own (a popup the user is looking at). */
const STATEFUL = new Set(['Popconfirm', 'Dropdown', 'Popover', 'Trigger', 'TaskActions']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.tsx') && !e.name.endsWith('.test.tsx')
        ? [join(dir, e.name)]
        : [],
  );
}

const tagName = (el: ts.JsxElement | ts.JsxSelfClosingElement) =>
  (ts.isJsxElement(el) ? el.openingElement.tagName : el.tagName).getText();
const attributes = (el: ts.JsxElement | ts.JsxSelfClosingElement) =>
  (ts.isJsxElement(el) ? el.openingElement.attributes : el.attributes).properties;
const hasKey = (el: ts.JsxElement | ts.JsxSelfClosingElement) =>
  attributes(el).some((a) => ts.isJsxAttribute(a) && a.name.getText() === 'key');

/** A child expression that may render nothing or something else on another render. */
function conditional(e: ts.JsxExpression): boolean {
  const x = e.expression;
  if (!x) return false;
  const inner = ts.isParenthesizedExpression(x) ? x.expression : x;
  return (
    ts.isConditionalExpression(inner) ||
    (ts.isBinaryExpression(inner) &&
      [
        ts.SyntaxKind.AmpersandAmpersandToken,
        ts.SyntaxKind.BarBarToken,
        ts.SyntaxKind.QuestionQuestionToken,
      ].includes(inner.operatorToken.kind))
  );
}

/** Space's children as Arco's toArray sees them: fragments are opened. */
function flatChildren(children: ts.NodeArray<ts.JsxChild>): ts.JsxChild[] {
  return children.flatMap((c) => (ts.isJsxFragment(c) ? flatChildren(c.children) : [c]));
}

function unkeyedAfterConditional(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isJsxElement(node) && tagName(node) === 'Space') {
      let shifted = false;
      for (const child of flatChildren(node.children)) {
        if (ts.isJsxExpression(child) && conditional(child)) shifted = true;
        else if (
          shifted &&
          (ts.isJsxElement(child) || ts.isJsxSelfClosingElement(child)) &&
          STATEFUL.has(tagName(child)) &&
          !hasKey(child)
        ) {
          const { line } = source.getLineAndCharacterOfPosition(child.getStart());
          found.push(`${file}:${line + 1} <${tagName(child)}>`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('Space children keep their place', () => {
  it('finds the pattern it guards against, and accepts a key', () => {
    const bad = `const a = <Space>{live && <Badge />}<Popconfirm title="x"><Button /></Popconfirm></Space>;`;
    const keyed = `const a = <Space>{live ? <Badge /> : null}<Popconfirm key="p" title="x"><Button /></Popconfirm></Space>;`;
    const before = `const a = <Space><Popconfirm title="x"><Button /></Popconfirm>{live && <Badge />}</Space>;`;
    const inFragment = `const a = <Space>{a && (<><Button /></>)}<><Dropdown droplist={m}><Button /></Dropdown></></Space>;`;
    expect(unkeyedAfterConditional('bad.tsx', bad)).toEqual(['bad.tsx:1 <Popconfirm>']);
    expect(unkeyedAfterConditional('keyed.tsx', keyed)).toEqual([]);
    expect(unkeyedAfterConditional('before.tsx', before)).toEqual([]);
    expect(unkeyedAfterConditional('fragment.tsx', inFragment)).toEqual(['fragment.tsx:1 <Dropdown>']);
  });

  it('no component puts an unkeyed popup after a conditional child of a Space', () => {
    const all = files(SRC);
    expect(all.length).toBeGreaterThan(100);
    const found = all.flatMap((f) => unkeyedAfterConditional(relative(SRC, f), readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });
});
