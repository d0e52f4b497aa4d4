import { describe, expect, it } from 'vitest';
import { messageIdOf } from './message-id';

const id = (s: string) => messageIdOf(Buffer.from(s));

describe('messageIdOf', () => {
  it('finds the top-level id wherever it stands, past nested values, strings and escapes', () => {
    expect(id('{"id":"m1","params":{"t":1}}')).toBe('m1');
    expect(
      id(' {\n "params" : {"id":"inner","a":[1,{"id":"x"}],"s":"}\\"{"} , "ts":1700000000000, "id" : "m2"}'),
    ).toBe('m2');
    expect(id('{"items":[{"ts":1,"params":{"id":"no"}}],"ok":true,"n":null,"id":"m3"}')).toBe('m3');
    expect(id('{"\\u0069d":"m4"}')).toBe('m4');
    expect(id('{"id":"a\\"b"}')).toBe('a"b');
  });

  it('reads a large message only up to its id, and finds an id after a large value', () => {
    const big = 'x'.repeat(300 * 1024);
    expect(id(`{"id":"early","params":{"blob":"${big}"}}`)).toBe('early');
    expect(id(`{"params":{"blob":"${big}"},"id":"late"}`)).toBe('late');
  });

  it('gives nothing for a message without a usable id', () => {
    expect(id('{"params":{"id":"inner"}}')).toBeUndefined();
    expect(id('{"id":7}')).toBeUndefined();
    expect(id(`{"id":"${'i'.repeat(65)}"}`)).toBeUndefined();
    expect(id('[{"id":"m1"}]')).toBeUndefined();
    expect(id('not json')).toBeUndefined();
    expect(id('{"params":{"t":1')).toBeUndefined();
    expect(id('{"id":"unterminated')).toBeUndefined();
    expect(id('')).toBeUndefined();
  });
});
