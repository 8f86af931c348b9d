// MATH responses (LaTeX answers), in the style of DyLAN's and Du et al.'s MATH debates (see corpus.ts).
// Expected answers compare as MATH answers do (normalization, then symbolic equivalence).
import type { CorpusEntry } from './corpus.ts';

const math = (text: string, answer: string | null, note: string): CorpusEntry => ({ type: 'math', text, answer, note });

export const MATH_CORPUS: CorpusEntry[] = [
  // \boxed{} and "The answer is".
  math(String.raw`So the area is $\pi r^2 = \boxed{63\pi}$.`, String.raw`63\pi`, 'boxed'),
  math(String.raw`Hence $a+d=\boxed{0}$.
The answer is 0`, '0', 'boxed then "The answer is"'),
  math(String.raw`We get $\boxed{\frac{211}{243}}$.`, String.raw`\frac{211}{243}`, 'boxed fraction'),
  math(String.raw`First $\boxed{3}$ seemed right, but after fixing the sign, $\boxed{-3}$.`, '-3', 'the last boxed'),
  math(String.raw`The answer is $\frac{9\pi}{2}$.`, String.raw`\frac{9}{2}\pi`, '"The answer is $X$", a form of pi'),
  math(String.raw`The answer is \frac{1}{2}`, '0.5', 'bare LaTeX after "The answer is"'),
  math(String.raw`The answer is $x = 5$.`, '5', 'a variable and its value'),
  math(String.raw`The answer is $\$15,\!000$.`, '15000', 'escaped dollar and thousands separator'),
  math(String.raw`The answer is $2{,}100$.`, '2100', 'LaTeX thousands separator {,}'),
  math(String.raw`The answer is 90^\circ.`, '90', 'degree sign'),
  math(String.raw`The answer is $12\text{ cm}^2$.`, '12', 'unit in \text{}'),
  math(String.raw`The answer is 10 square units.`, '10', 'unit words'),
  math(String.raw`The answer is $5 \text{ or } 9$.`, '9, 5', '"or" list: both values, as a set'),
  math(String.raw`The answer is $x = 2$ or $x = -3$.`, '-3, 2', 'an "or" list of assignments'),
  math(String.raw`Therefore, the solutions are $x = 2$ and $x = -3$.`, '2, -3', 'an "and" list in a concluding sentence'),
  math(String.raw`The answer is $x \in [2, 5]$.`, '[2,5]', '"x \\in" an interval'),
  math(String.raw`The answer is $\left(-\infty, \frac{1}{2}\right]$.`, String.raw`(-\infty,0.5]`, 'interval with \\frac'),
  math(String.raw`The answer is $\begin{pmatrix} \frac{1}{2} \\ -3 \end{pmatrix}$.`, String.raw`\begin{pmatrix}0.5\\-3\end{pmatrix}`, 'matrix with \\frac'),
  math(String.raw`The answer is $(1, 4)$.`, '(1,4)', 'a point'),
  math(String.raw`The answer is $\frac{\sqrt{2}}{2}$.`, String.raw`\frac{1}{\sqrt{2}}`, 'equivalent radicals'),
  math(String.raw`The answer is $-34 + 12x$.`, '12x-34', 'reordered terms'),
  math(String.raw`The answer is \text{odd}.`, 'odd', 'a text answer'),
  math(String.raw`The answer is Monday.`, 'Monday', 'a word answer'),
  math(String.raw`The answer is $\boxed{\text{(C)}}$.`, '(C)', 'a lettered MATH answer'),

  // Concluding sentences.
  math(String.raw`Therefore, the value of $n$ is $11$.`, '11', 'concluding sentence, math value'),
  math(String.raw`Adding 6 to both sides gives $n = 11$. Therefore, the value of $n$ is 11.`, '11', 'concluding sentence, plain value'),
  math(String.raw`Therefore, $x = \frac{21}{31}$.`, String.raw`\frac{21}{31}`, '"Therefore, $x = ...$"'),
  math(String.raw`So the son is currently 6 years old.`, '6', 'closing sentence with a unit'),
  math(String.raw`Therefore, there are 34,650 ways to arrange the letters.`, '34650', '"there are N ways"'),
  math(String.raw`Therefore, the integers in increasing order are:

$2, 11, 14, 15$`, '2, 11, 14, 15', 'a list on the line after "are:"'),
  math(String.raw`Therefore, the probability of both representatives being quadruplets is:

1/300

This matches some of the other agents.`, '1/300', 'a value on its own line after "is:"'),
  math(String.raw`Solving for $x$, we get:
$$x = \frac{60}{1} = 60$$`, '60', 'display math after "we get:": its result'),
  math(String.raw`Thus, the curve passes through the point $(15,-29)$ at $t=2$.`, '(15,-29)', 'a point, then the condition it holds under'),
  math(String.raw`Therefore, the lines intersect at $(1, 4).$`, '(1,4)', '"intersect at $X$"'),
  math(String.raw`Therefore, $\frac{11}{60}$ of the students walk to school.`, String.raw`\frac{11}{60}`, 'a leading value'),
  math(String.raw`Therefore, 70 students did not score proficient.`, '70', 'a leading number'),
  math(String.raw`Therefore, $f(1)$ is 9.`, '9', 'the subject is not the value'),
  math(String.raw`Therefore, 110 fallops are equivalent to 44 wallops.`, '44', 'the first number is the subject'),
  math(String.raw`Therefore, the area of the triangle is (sqrt(3) - sqrt(6))/4.`, String.raw`\frac{\sqrt{3}-\sqrt{6}}{4}`, 'a plain-text expression'),
  math(String.raw`So the volume of the sphere is 32π/3 cubic units.`, String.raw`\frac{32\pi}{3}`, 'unicode pi'),
  math(String.raw`Therefore, the updated answer is that the sum of two odd functions is always even.`, 'even', 'even/odd in a sentence'),
  math(String.raw`All three methods are valid and arrive at the same answer of $\frac{195}{34}$.`, String.raw`\frac{195}{34}`, '"the same answer of $X$"'),
  math(String.raw`Therefore, I agree with their answer of $(-\sqrt{3}, 2+\sqrt{3})$.`, String.raw`(-\sqrt{3},2+\sqrt{3})`, 'agreement with a stated value'),
  math(String.raw`Their answer of $37^\circ$ for the smallest angle is correct.`, '37', 'endorsing another agent\'s value'),
  math(String.raw`Therefore, the maximum value is $\frac{1}{4}$, which occurs at $a = c = \frac12$.`, String.raw`\frac{1}{4}`, 'value before a "which" clause'),
  math(String.raw`So the younger brother received $\frac{1}{2}(x^2-20)$ dollars in the last division.`, String.raw`\frac{x^2}{2}-10`, 'a value with a unit and a place after it'),
  math(String.raw`Therefore, $852_9$ in base 10 is equal to 695.`, '695', '"is equal to N" after a subject in math'),
  math(String.raw`Therefore, the probability is 1/12, or approximately 0.0833.`, '1/12', 'exact value before its approximation'),
  math(String.raw`Therefore, the GCF of all the numbers in S is 3^1, or just 3.`, '3', '"X, or just N"'),
  math(String.raw`Therefore, the answer to the problem is 1. The other solutions that suggest the answer is 4 seem to have missed some details.`, '1', 'an answer other solutions suggest is not the own'),
  math(String.raw`Therefore, the correct answer is $\cos C=\frac{3+\sqrt{241}}{45}.$`, String.raw`\frac{3+\sqrt{241}}{45}`, 'a named quantity and its value'),
  math(String.raw`My updated answer is the same as theirs: 371146600.`, '371146600', '"the same as theirs: N"'),
  math(String.raw`The updated answer is that there are four primes: 13, 23, 43, and 73.`, '4', 'a count in words'),
  math(String.raw`The answer is: the car travels 137.5 feet from the time the brakes are applied.`, '137.5', 'one number in an answer sentence'),
  math(String.raw`The answer is 4. Checking again, so the total is 5.`, '5', 'a later conclusion wins'),
  math(String.raw`In conclusion, there is an ordered pair $(p,q)$ that satisfies the condition, and it is $(\frac{4}{3},\frac{9}{4})$.`, String.raw`(\frac{4}{3},\frac{9}{4})`, 'the value closing the sentence, not the named pair'),
  math(String.raw`Therefore, $x^2 - 10x + 41$ is the quadratic that has $5-4i$ as a root.`, 'x^2-10x+41', 'leading value; the root is not the answer'),

  // No answer stated.
  math(String.raw`Therefore, the measure is between 0 and 36 degrees.`, null, 'a range, not a value'),
  math(String.raw`Therefore, the maximum is either $\frac{1}{4}$ or $\frac{1}{16},$ depending on the approach.`, null, 'hedged between two values'),
  math(String.raw`The answer is either 105 or 0, depending on which solution we follow.`, null, 'hedged "the answer is either"'),
  math(String.raw`Therefore, both 15 and 16 can be correct answers depending on the rounding rule.`, null, 'hedged "both ... can be"'),
  math(String.raw`It is important to double-check the final answer.`, null, 'advice'),
  math(String.raw`Their answer is 12. Therefore, the correct answer is that there is no solution.`, null, 'a denial after another agent\'s value'),
  math(String.raw`The answer is correct.`, null, 'a verdict'),
  math(String.raw`Therefore, there is no value of $k$ that satisfies the given conditions.`, null, '"no value of $k$"'),
  math(String.raw`Therefore, there is no triangle $ABC$ that satisfies the given conditions.`, null, '"there is no ..."'),
  math(String.raw`All three solutions are valid and correct, so there is no need for an updated answer.`, null, 'no new answer given'),
  math(String.raw`This solution also yields a final answer of 0 ordered triplets. Therefore, the final answer is either 105 or 0, depending on which solution we follow.`, null, 'a hedge after another solution\'s value'),
  math(String.raw`We would need more information to decide. The problem is ambiguous as stated.`, null, 'no conclusion'),
  math(String.raw`There are 10 meerkats, so there are 45 pairs. Each meerkat sleeps 5 - 9 = -4 nights. Therefore, the problem statement is flawed, and it is not possible to arrive at a meaningful answer with the information provided.`, null, 'a closing denial cancels earlier values'),
  math(String.raw`The answer is the same as before.`, null, 'a reference to an earlier answer'),
  math(String.raw`Their final answer of $\frac{AB}{DC} = y + x$ is expressed clearly. I agree with the first agent's method.`, null, 'another agent\'s answer, not endorsed as correct'),
  math(String.raw`So either $x-p+q-r=0$ or $x-q=0$. Therefore, the other solution is either $x = p - q + r$ or $x = q$.`, null, '"either ... or" hedge'),
  math('', null, 'empty response'),
];
