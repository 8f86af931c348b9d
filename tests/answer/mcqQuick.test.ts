// The quick paths of reading a multiple-choice answer (mcq.ts, settled.ts), each against the reading
// it stands for: what a phrase names, kept for the latest options list, is never another phrase's or
// another list's; rule 7's closing option is found where the text ends on it, and only where nothing
// bars it; the settled reading looks for an option's text only in the closing sentences.
import { describe, expect, it } from 'vitest';
import { questionOptions, readAnswer } from '../../src/answer.ts';
import { optionByText, readMcq } from '../../src/answer/mcq.ts';
import { settledOption } from '../../src/answer/settled.ts';

const CAPITAL = 'Which city is the capital of Australia? A) Sydney, B) Melbourne, C) Canberra, D) Perth';
const PLANET = 'Which planet has the shortest year? A) Venus B) Mercury C) Mars D) Earth';

describe("what a phrase names by an option's text", () => {
  it('is read for each phrase: a phrase read before does not answer for another', () => {
    const o = questionOptions(CAPITAL);
    expect(optionByText('Canberra', o)).toBe('C');
    expect(optionByText('Sydney', o)).toBe('A');
    expect(optionByText('Canberra', o)).toBe('C');
    expect(optionByText('Perth, of course', o)).toBe('D');
    expect(optionByText('none of them', o)).toBeNull();
    expect(optionByText('Sydney', o)).toBe('A');
  });

  it("is read against the list asked about: another list's answer for the same phrase is not used", () => {
    const capital = questionOptions(CAPITAL);
    const planet = questionOptions(PLANET);
    expect(optionByText('the second option', capital)).toBe('B');
    expect(optionByText('Mars', capital)).toBeNull();
    expect(optionByText('Mars', planet)).toBe('C');
    expect(optionByText('Mars', capital)).toBeNull();
    // The same texts under other letters: the letter is the list's.
    const swapped = capital.map((o, i) => ({ ...o, text: capital[(i + 1) % capital.length].text }));
    expect(optionByText('Canberra', capital)).toBe('C');
    expect(optionByText('Canberra', swapped)).toBe('B');
    expect(optionByText('Canberra', capital)).toBe('C');
  });

  it('is read again when the list read before is changed in place', () => {
    const o = questionOptions(CAPITAL);
    expect(optionByText('Darwin', o)).toBeNull();
    o[3] = { letter: 'D', text: 'Darwin' };
    expect(optionByText('Darwin', o)).toBe('D');
    expect(optionByText('Perth', o)).toBeNull();
  });

  it('stays right past the number of phrases kept', () => {
    const o = questionOptions(CAPITAL);
    for (let i = 0; i < 5000; i++) expect(optionByText(`step ${i} of the check`, o)).toBeNull();
    expect(optionByText('Canberra', o)).toBe('C');
    for (let i = 0; i < 5000; i++) optionByText(`another step ${i}`, o);
    expect(optionByText('Melbourne', o)).toBe('B');
  });

  it("gives each response of a question its own reading, the responses' sentences repeated", () => {
    const o = questionOptions(CAPITAL);
    const read = (text: string) => readAnswer(text, 'mcq', o, CAPITAL);
    expect(settledOption('I checked it twice. The capital is Canberra.', o)).toBe('C');
    expect(settledOption('I checked it twice. The capital is Sydney.', o)).toBe('A');
    expect(settledOption('I checked it twice. The capital is Canberra.', o)).toBe('C');
    expect(read('I checked it twice. The answer is Canberra.')).toEqual({ answer: 'C' });
    expect(read('I checked it twice. The answer is Perth.')).toEqual({ answer: 'D' });
    expect(read('I checked it twice. The answer is Canberra.')).toEqual({ answer: 'C' });
  });
});

describe("rule 7: '(C)' closing the response", () => {
  it('is read where only spaces and ".!*" follow it, and where a few characters precede it', () => {
    expect(readMcq('Canberra is the capital (C)').answer).toBe('C');
    expect(readMcq('Canberra is the capital (C). ! *  \n ').answer).toBe('C');
    expect(readMcq('Canberra, purpose-built in 1913 [c]!').answer).toBe('C');
    expect(readMcq('x (B)').answer).toBe('B');
  });

  it('is not read where a word bars it or other text follows it', () => {
    expect(readMcq('It is surely not (C).').answer).toBeNull();
    expect(readMcq('Canberra is the seat of government (C)').answer).toBeNull(); // "of government"
    expect(readMcq('Canberra rather than (C) something.').answer).toBeNull();
    expect(readMcq('Canberra (C) is the one I would name, see').answer).toBeNull();
    expect(readMcq('(C)').answer).toBe('C'); // the whole text: rule 0 and rule 7 agree
    expect(readMcq(')').answer).toBeNull();
  });
});

describe('the settled reading of an option', () => {
  it("reads an option's text in the closing sentences, from the last that names one", () => {
    const o = questionOptions(CAPITAL);
    expect(settledOption('One. Two. Three. The capital is Canberra. I am sure of it.', o)).toBe('C');
    expect(settledOption('One. Two. The capital is Canberra. Three. Four.', o)).toBe('C');
    expect(settledOption('Sydney is large. Two. Three. Four. Five.', o)).toBeNull(); // beyond the four closing sentences
    expect(settledOption('The capital is Canberra. It is not Perth.', o)).toBeNull(); // the last naming one rejects it
  });
});
