/**
 * English function words dropped before pooling: they carry little topic and, being the most frequent
 * words, would dominate an average. Close to NLTK's list, including negations, because an averaged
 * bag of words cannot represent negation anyway.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just let me more ' +
    'most my myself no nor not now of off on once only or other ought our ours ourselves out over own ' +
    'same shall she should so some such than that the their theirs them themselves then there these they ' +
    'this those through to too under until up us very was we were what when where which while who whom ' +
    'whose why will with would you your yours yourself yourselves'
  ).split(' '),
);
