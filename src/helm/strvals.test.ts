// Oracle table for the --set / --set-string parser: every case below was run through helm 4.1.4
// (`helm template` with `--set`/`--set-string`, a `{{ toJson .Values }}` template) and matched.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GoSizedInt,
  goInt64 as i64,
  goTypeName,
  isGoMap,
  type GoMap,
  type GoValue,
} from '../gotemplate/value.js';
import { parseSet, parseSetValues, typedVal } from './strvals.js';

interface Case {
  /** One `--set` argument (or `--set-string` with stringValues). */
  expr?: string;
  stringValues?: boolean;
  /** Several flags applied in order to the same map, as helm does with repeated flags. */
  steps?: Array<['set' | 'set-string', string]>;
  /** Values already present (from a values file: numbers are float64), as JSON. */
  seed?: string;
  /** helm's `toJson .Values` of the result… */
  json?: string;
  /** …or helm's error, without the CLI's `failed parsing --set data: ` prefix. */
  error?: string;
}

/** encoding/json as helm's toJson writes these values (sorted keys, HTML-safe escaping). */
function goJson(v: GoValue | undefined): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof GoSizedInt) return String(v.value);
  if (typeof v === 'string') {
    return JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  }
  if (Array.isArray(v)) return '[' + v.map(goJson).join(',') + ']';
  if (isGoMap(v)) {
    const keys = Object.keys(v).sort();
    return '{' + keys.map((k) => goJson(k) + ':' + goJson(v[k])).join(',') + '}';
  }
  throw new Error('unexpected value');
}

const cases: Case[] = [
  { expr: 'a=1', json: '{"a":1}' },
  { expr: 'a=0', json: '{"a":0}' },
  { expr: 'a=true,b=FALSE,c=True,d=tRuE', json: '{"a":true,"b":false,"c":true,"d":true}' },
  { expr: 'a=', json: '{"a":""}' },
  { expr: 'a=,b=2', json: '{"a":"","b":2}' },
  { expr: 'a=null,b=NULL,c=Null', json: '{"a":null,"b":null,"c":null}' },
  { expr: 'a=b', json: '{"a":"b"}' },
  { expr: 'a=00', json: '{"a":"00"}' },
  { expr: 'a=007', json: '{"a":"007"}' },
  { expr: 'a=+7', json: '{"a":7}' },
  { expr: 'a=-007', json: '{"a":-7}' },
  { expr: 'a=-7', json: '{"a":-7}' },
  { expr: 'a=-0', json: '{"a":0}' },
  { expr: 'a=1e3', json: '{"a":"1e3"}' },
  { expr: 'a=+0', json: '{"a":0}' },
  { expr: 'a=0x10', json: '{"a":"0x10"}' },
  { expr: 'a=1.5', json: '{"a":"1.5"}' },
  { expr: 'a=9223372036854775807', json: '{"a":9223372036854775807}' },
  { expr: 'a=1_000', json: '{"a":"1_000"}' },
  { expr: 'a=9223372036854775808', json: '{"a":"9223372036854775808"}' },
  { expr: 'a=-1.5', json: '{"a":"-1.5"}' },
  { expr: 'a= 5', json: '{"a":" 5"}' },
  { expr: 'a=-9223372036854775808', json: '{"a":-9223372036854775808}' },
  { expr: 'a=-9223372036854775809', json: '{"a":"-9223372036854775809"}' },
  { expr: 'a=5 ', json: '{"a":"5 "}' },
  { expr: 'a=-', json: '{"a":"-"}' },
  { expr: 'a=+', json: '{"a":"+"}' },
  { expr: 'a.b.c=1', json: '{"a":{"b":{"c":1}}}' },
  { expr: 'a.b=1,a.c=2', json: '{"a":{"b":1,"c":2}}' },
  { expr: 'a[2]=x', json: '{"a":[null,null,"x"]}' },
  { expr: 'a[0]=x', json: '{"a":["x"]}' },
  { expr: 'a[0]=x,a[2]=y', json: '{"a":["x",null,"y"]}' },
  { expr: 'a[2]=x,a[0]=y', json: '{"a":["y",null,"x"]}' },
  { expr: 'a[0].b=c', json: '{"a":[{"b":"c"}]}' },
  { expr: 'a[1].b=c,a[0].d=e', json: '{"a":[{"d":"e"},{"b":"c"}]}' },
  { expr: 'a[0].b=c,a[0].d=e', json: '{"a":[{"b":"c","d":"e"}]}' },
  { expr: 'a[1][0]=x,a[1][2]=y', json: '{"a":[null,["x",null,"y"]]}' },
  { expr: 'a[0]={x,y}', json: '{"a":[["x","y"]]}' },
  { expr: 'a={x,y}', json: '{"a":["x","y"]}' },
  { expr: 'a[0][1]=x', json: '{"a":[[null,"x"]]}' },
  { expr: 'a={1,true,null,,0x1}', json: '{"a":[1,true,null,"","0x1"]}' },
  { expr: 'a={}', json: '{"a":[""]}' },
  { expr: 'a={x,y}z', error: 'key "z" has no value' },
  { expr: 'a={x}', json: '{"a":["x"]}' },
  { expr: 'a={x', error: "list must terminate with '}'" },
  { expr: 'a={x\\,y,z}', json: '{"a":["x,y","z"]}' },
  { expr: 'a={x,y},b=1', json: '{"a":["x","y"],"b":1}' },
  { expr: 'a\\.b=1', json: '{"a.b":1}' },
  { expr: 'a=x\\', json: '{"a":"x"}' },
  { expr: 'a=x\\,y', json: '{"a":"x,y"}' },
  { expr: 'a\\,b=1', json: '{"a,b":1}' },
  { expr: 'a\\', error: 'key "a" has no value' },
  { expr: 'a=x\\\\y', json: '{"a":"x\\\\y"}' },
  { expr: 'a=b=c', json: '{"a":"b=c"}' },
  { expr: 'a=x,y=1', json: '{"a":"x","y":1}' },
  { expr: 'a', error: 'key "a" has no value' },
  { expr: 'a,b=1', error: 'key "a" has no value (cannot end with ,)' },
  { expr: 'a=x,,b=1', error: 'key "" has no value (cannot end with ,)' },
  { expr: 'a.b', error: 'key "b" has no value' },
  { expr: ',', error: 'key "" has no value (cannot end with ,)' },
  { expr: 'a.,b=1', error: 'key "" has no value (cannot end with ,)' },
  { expr: 'a.', json: '{}' },
  { expr: 'a.=1', error: 'key map "a" has no value' },
  { expr: '=1', json: '{}' },
  { expr: 'a[', json: '{}' },
  { expr: '.a=1', json: '{}' },
  { expr: '[0]=1', json: '{}' },
  { expr: 'a[0]', json: '{"a":[]}' },
  { expr: 'a[0', json: '{}' },
  { expr: 'a[x]=1', error: 'error parsing index: strconv.Atoi: parsing "x": invalid syntax' },
  { expr: 'a[]=1', error: 'error parsing index: strconv.Atoi: parsing "": invalid syntax' },
  { expr: 'a[-1]=1', error: 'negative -1 index not allowed' },
  { expr: 'a[+1]=1', json: '{"a":[null,1]}' },
  { expr: 'a[65537]=1', error: 'index of 65537 is greater than maximum supported index of 65536' },
  { expr: 'a[01]=1', json: '{"a":[null,1]}' },
  {
    expr: 'a[99999999999999999999]=1',
    error: 'error parsing index: strconv.Atoi: parsing "99999999999999999999": value out of range',
  },
  {
    expr: 'a[9223372036854775807]=1',
    error: 'index of 9223372036854775807 is greater than maximum supported index of 65536',
  },
  { expr: 'a[0]b=1', error: "unexpected data at end of array index: ['b']" },
  { expr: 'a[0],b=1', error: "unexpected data at end of array index: [',' 'b']" },
  { expr: 'a[0]]=1', error: "unexpected data at end of array index: [']']" },
  { expr: 'a[0].b', error: 'key "b" has no value' },
  { expr: 'a[0].=1', json: '{"a":[{}]}' },
  { expr: 'a[0][x]=1', error: 'error parsing index: strconv.Atoi: parsing "x": invalid syntax' },
  { expr: 'a[0][-2]=1', error: 'negative -2 index not allowed' },
  { expr: 'a}=1', json: '{"a}":1}' },
  { expr: 'a]=1', json: '{"a]":1}' },
  { expr: ' a=1', json: '{" a":1}' },
  { expr: 'a=1,', json: '{"a":1}' },
  { expr: 'a=1,,', error: 'key "" has no value (cannot end with ,)' },
  { expr: 'a b=1', json: '{"a b":1}' },
  { expr: 'a={x,y},', json: '{"a":["x","y"]}' },
  { expr: 'a\tb', error: 'key "a\\tb" has no value' },
  { expr: 'a\u00e9', error: 'key "a\u00e9" has no value' },
  { expr: 'a[0]\u00e9=1', error: "unexpected data at end of array index: ['\u00e9']" },
  { expr: 'a=fal\u017fe', json: '{"a":false}' },
  { expr: 'a\u00a0b', error: 'key "a\\u00a0b" has no value' },
  { expr: 'a=ok"q', json: '{"a":"ok\\"q"}' },
  { expr: 'a"b', error: 'key "a\\"b" has no value' },
  {
    steps: [
      ['set', 'a=1'],
      ['set', 'a[0]=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is int64, not []interface {}',
  },
  {
    steps: [
      ['set', 'a=x'],
      ['set', 'a.b=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is string, not map[string]interface {}',
  },
  {
    steps: [
      ['set', 'a=null'],
      ['set', 'a.b=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is nil, not map[string]interface {}',
  },
  {
    steps: [
      ['set', 'a.b=1'],
      ['set', 'a[0]=2'],
    ],
    error:
      'unable to parse key: interface conversion: interface {} is map[string]interface {}, not []interface {}',
  },
  {
    steps: [
      ['set', 'a=null'],
      ['set', 'a[0]=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is nil, not []interface {}',
  },
  {
    steps: [
      ['set', 'a=true'],
      ['set', 'a[0]=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is bool, not []interface {}',
  },
  {
    steps: [
      ['set', 'a[0]=1'],
      ['set', 'a.b=2'],
    ],
    error:
      'unable to parse key: interface conversion: interface {} is []interface {}, not map[string]interface {}',
  },
  {
    steps: [
      ['set', 'a.b=1'],
      ['set', 'a.c=2'],
    ],
    json: '{"a":{"b":1,"c":2}}',
  },
  {
    steps: [
      ['set', 'a[0]=1'],
      ['set', 'a[0][0]=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is int64, not []interface {}',
  },
  {
    steps: [
      ['set', 'a.b=1'],
      ['set', 'a=2'],
    ],
    json: '{"a":2}',
  },
  {
    steps: [
      ['set', 'a[0]=1,a[1]=2'],
      ['set', 'a[0]=3'],
    ],
    json: '{"a":[3,2]}',
  },
  {
    expr: 'a=1,b=true,c=null,d={1,2},e=',
    stringValues: true,
    json: '{"a":"1","b":"true","c":"null","d":["1","2"],"e":""}',
  },
  {
    steps: [
      ['set', 'a[0]=1'],
      ['set', 'a[0].b=2'],
    ],
    json: '{"a":[{"b":2}]}',
  },
  { expr: 'a[0]=007', stringValues: true, json: '{"a":["007"]}' },
  { expr: 'a.b=0', stringValues: true, json: '{"a":{"b":"0"}}' },
  {
    expr: 'k0.k1.k2.k3.k4.k5.k6.k7.k8.k9.k10.k11.k12.k13.k14.k15.k16.k17.k18.k19.k20.k21.k22.k23.k24.k25.k26.k27.k28.k29.k30.k31=1',
    error: 'value name nested level is greater than maximum supported nested level of 30',
  },
  { expr: 'a[1x]=1', error: 'error parsing index: strconv.Atoi: parsing "1x": invalid syntax' },
  { expr: 'a[-]=1', error: 'error parsing index: strconv.Atoi: parsing "-": invalid syntax' },
  {
    expr: 'a[12345678901234567890x]=1',
    error: 'error parsing index: strconv.Atoi: parsing "12345678901234567890x": invalid syntax',
  },
  {
    expr: 'k0.k1.k2.k3.k4.k5.k6.k7.k8.k9.k10.k11.k12.k13.k14.k15.k16.k17.k18.k19.k20.k21.k22.k23.k24.k25.k26.k27.k28.k29.k30=1',
    json: '{"k0":{"k1":{"k2":{"k3":{"k4":{"k5":{"k6":{"k7":{"k8":{"k9":{"k10":{"k11":{"k12":{"k13":{"k14":{"k15":{"k16":{"k17":{"k18":{"k19":{"k20":{"k21":{"k22":{"k23":{"k24":{"k25":{"k26":{"k27":{"k28":{"k29":{"k30":1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}',
  },
  {
    expr: 'a[0].k0.k1.k2.k3.k4.k5.k6.k7.k8.k9.k10.k11.k12.k13.k14.k15.k16.k17.k18.k19.k20.k21.k22.k23.k24.k25.k26.k27.k28.k29.k30=1',
    json: '{"a":[{"k0":{"k1":{"k2":{"k3":{"k4":{"k5":{"k6":{"k7":{"k8":{"k9":{"k10":{"k11":{"k12":{"k13":{"k14":{"k15":{"k16":{"k17":{"k18":{"k19":{"k20":{"k21":{"k22":{"k23":{"k24":{"k25":{"k26":{"k27":{"k28":{"k29":{"k30":1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}]}',
  },
  { expr: 'a[0][1]', json: '{"a":[]}' },
  { expr: 'a[0][', json: '{"a":[]}' },
  {
    expr: 'a[-99999999999999999999]=1',
    error: 'error parsing index: strconv.Atoi: parsing "-99999999999999999999": value out of range',
  },
  {
    expr: 'a[123456789012345678x]=1',
    error: 'error parsing index: strconv.Atoi: parsing "123456789012345678x": invalid syntax',
  },
  {
    expr: 'a[18446744073709551616x]=1',
    error: 'error parsing index: strconv.Atoi: parsing "18446744073709551616x": value out of range',
  },
  {
    expr: 'a[1234567890123456789x]=1',
    error: 'error parsing index: strconv.Atoi: parsing "1234567890123456789x": invalid syntax',
  },
  { expr: 'a[-9223372036854775808]=1', error: 'negative -9223372036854775808 index not allowed' },
  { expr: 'a[0].b.c=1', json: '{"a":[{"b":{"c":1}}]}' },
  {
    expr: 'a[-9223372036854775809]=1',
    error: 'error parsing index: strconv.Atoi: parsing "-9223372036854775809": value out of range',
  },
  { expr: 'a[0][0].b=1', json: '{"a":[[{"b":1}]]}' },
  { expr: 'a={x,y}.b', error: 'key "b" has no value' },
  { expr: 'a[0]=x,a[0].b=1', json: '{"a":[{"b":1}]}' },
  { expr: 'a[1].b=1,a[0]=x,a[0].c=2', json: '{"a":[{"c":2},{"b":1}]}' },
  { expr: 'a[0].b=1,a[0]=x', json: '{"a":["x"]}' },
  {
    expr: 'a[0]=1,a[0][1]=2',
    error: 'unable to parse key: interface conversion: interface {} is int64, not []interface {}',
  },
  {
    expr: 'a=1,a.b=2',
    error: 'unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}',
  },
  { expr: 'a.b[0]=1,a.b[1]=2', json: '{"a":{"b":[1,2]}}' },
  { expr: 'a={x}}', error: 'key "}" has no value' },
  { expr: 'a[ 1]=1', error: 'error parsing index: strconv.Atoi: parsing " 1": invalid syntax' },
  { expr: 'a={x,}', json: '{"a":["x",""]}' },
  { expr: 'a[0]=', json: '{"a":[""]}' },
  { expr: 'a[1\\]]=1', error: 'error parsing index: strconv.Atoi: parsing "1]": invalid syntax' },
  { expr: 'a={,}', json: '{"a":["",""]}' },
  { expr: 'a[1 ]=1', error: 'error parsing index: strconv.Atoi: parsing "1 ": invalid syntax' },
  { expr: 'a[0]=,b=1', json: '{"a":[""],"b":1}' },
  { expr: 'a[0]={x,y', error: "list must terminate with '}'" },
  { expr: 'a[\\1]=1', json: '{"a":[null,1]}' },
  { expr: 'a=\\{x,y}', error: 'key "y}" has no value' },
  { expr: 'a\\[0]=1', json: '{"a[0]":1}' },
  { expr: 'a.b=1,a.=2', json: '{"a":{"b":1}}' },
  { expr: 'a={x\\}y}', json: '{"a":["x}y"]}' },
  { expr: 'a=x}', json: '{"a":"x}"}' },
  { expr: 'a=[1,2]', error: 'key "2]" has no value' },
  { expr: 'a=}{', json: '{"a":"}{"}' },
  { expr: 'a.d=2,a.c[1]=x', seed: '{"a":{"b":1,"c":[1,2,3]}}', json: '{"a":{"b":1,"c":[1,"x",3],"d":2}}' },
  { expr: 'a={"x":1}', json: '{"a":["\\"x\\":1"]}' },
  { expr: "a='1'", json: '{"a":"\'1\'"}' },
  {
    expr: 'a[0]=1',
    seed: '{"a":5}',
    error: 'unable to parse key: interface conversion: interface {} is float64, not []interface {}',
  },
  { expr: 'a="quoted"', json: '{"a":"\\"quoted\\""}' },
  {
    expr: 'a.b=1',
    seed: '{"a":5}',
    error: 'unable to parse key: interface conversion: interface {} is float64, not map[string]interface {}',
  },
  { expr: 'a[1].b=null', stringValues: true, json: '{"a":[null,{"b":"null"}]}' },
  { expr: 'a=TRUE,b=-5', stringValues: true, json: '{"a":"TRUE","b":"-5"}' },
  { expr: 'a[1].d=3', seed: '{"a":[{"b":1},{"c":2}]}', json: '{"a":[{"b":1},{"c":2,"d":3}]}' },
  { expr: 'a={x,y}', stringValues: true, json: '{"a":["x","y"]}' },
  { expr: 'a[5]=x', seed: '{"a":[1,2,3]}', json: '{"a":[1,2,3,null,null,"x"]}' },
  {
    steps: [
      ['set', 'a=1'],
      ['set-string', 'a=1'],
    ],
    json: '{"a":"1"}',
  },
  {
    steps: [
      ['set', 'a={1,2}'],
      ['set', 'a[3]=4'],
    ],
    json: '{"a":[1,2,null,4]}',
  },
  {
    steps: [
      ['set', 'a=x'],
      ['set', 'a=null'],
    ],
    json: '{"a":null}',
  },
  { expr: 'a[0]=1,a[0]=x', json: '{"a":["x"]}' },
  {
    expr: 'a.b=1,a.b.c=2',
    error: 'unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}',
  },
  { expr: 'a\ud83d\ude00', error: 'key "a\ud83d\ude00" has no value' },
  { expr: 'a=1,b.c[0].d={x,y}', json: '{"a":1,"b":{"c":[{"d":["x","y"]}]}}' },
  { expr: '', json: '{}' },
  { expr: 'a\u0001b', error: 'key "a\\x01b" has no value' },
  { expr: 'a\\=b=1', json: '{"a=b":1}' },
  { expr: 'a=b,c', error: 'key "c" has no value' },
  { expr: 'a[0][0]=1,a[0][2]=3', json: '{"a":[[1,null,3]]}' },
  { expr: 'a[2].b=1,a[0].c=2', json: '{"a":[{"c":2},null,{"b":1}]}' },
  { expr: 'a[0]=1,a[0].b=2', json: '{"a":[{"b":2}]}' },
  { expr: 'a[1][0]=x', json: '{"a":[null,["x"]]}' },
  { expr: 'a[0]={}', json: '{"a":[[""]]}' },
  { expr: 'a= ,b=x y', json: '{"a":" ","b":"x y"}' },
  { expr: 'a.b.c=1,a.b.d=2,a.e=3', json: '{"a":{"b":{"c":1,"d":2},"e":3}}' },
  { expr: 'a[0].b[1].c=x', json: '{"a":[{"b":[null,{"c":"x"}]}]}' },
  { expr: 'a.b={x,y},a.b[3]=z', json: '{"a":{"b":["x","y",null,"z"]}}' },
  { expr: 'a=\u017f', json: '{"a":"\u017f"}' },
  { expr: 'a=TrUe,b=nULL', json: '{"a":true,"b":null}' },
  { expr: 'a=1,b=2,c=3,a=4', json: '{"a":4,"b":2,"c":3}' },
  { expr: '\u00c0B=1', json: '{"\u00c0B":1}' },
  { expr: 'a=<&>', json: '{"a":"\\u003c\\u0026\\u003e"}' },
  {
    steps: [
      ['set', 'a[0].b=1'],
      ['set', 'a[0].c=2'],
    ],
    json: '{"a":[{"b":1,"c":2}]}',
  },
  {
    steps: [
      ['set', 'a.b=1'],
      ['set', 'a.b.c=2'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}',
  },
  {
    steps: [
      ['set-string', 'a[0]=1'],
      ['set', 'a[1]=1'],
    ],
    json: '{"a":["1",1]}',
  },
  {
    steps: [
      ['set', 'a='],
      ['set', 'a.b=1'],
    ],
    error: 'unable to parse key: interface conversion: interface {} is string, not map[string]interface {}',
  },
  {
    steps: [
      ['set', 'x.y[1]=2'],
      ['set-string', 'x.y[0]=1'],
    ],
    json: '{"x":{"y":["1",2]}}',
  },
  { expr: '__proto__.x=1', json: '{"__proto__":{"x":1}}' },
  { expr: 'a.__proto__=1,constructor=2', json: '{"a":{"__proto__":1},"constructor":2}' },
  { expr: '__proto__[0]=1', json: '{"__proto__":[1]}' },
];

function run(c: Case): GoMap {
  const into = (c.seed === undefined ? {} : JSON.parse(c.seed)) as GoMap;
  const steps: Array<['set' | 'set-string', string]> = c.steps ?? [
    [c.stringValues === true ? 'set-string' : 'set', c.expr ?? ''],
  ];
  for (const [flag, expr] of steps) parseSet(expr, into, { stringValues: flag === 'set-string' });
  return into;
}

describe('strvals (helm --set)', () => {
  test('oracle table has enough confirmed cases', () => {
    assert.ok(cases.length >= 40);
  });
  for (const c of cases) {
    const label = `${c.stringValues === true ? '--set-string' : '--set'} ${JSON.stringify(c.expr ?? c.steps)}${c.seed === undefined ? '' : ' over ' + c.seed}`;
    test(label, () => {
      if (c.error !== undefined) {
        assert.throws(
          () => run(c),
          (e: unknown) => e instanceof Error && e.message === c.error,
        );
      } else {
        assert.equal(goJson(run(c)), c.json);
      }
    });
  }

  test('ints are int64s, exact at the int64 limits', () => {
    const v = parseSetValues('a=9223372036854775807,b=-9223372036854775808,c=0,d=+7');
    assert.deepEqual(v, {
      a: i64(9223372036854775807n),
      b: i64(-9223372036854775808n),
      c: i64(0n),
      d: i64(7n),
    });
    assert.equal(goTypeName(v['a']), 'int64');
  });

  test('the largest allowed index grows the list with nils', () => {
    const v = parseSetValues('a[65536]=1');
    const a = v['a'];
    assert.ok(Array.isArray(a));
    assert.equal(a.length, 65537);
    assert.equal(a[0], null);
    assert.deepEqual(a[65536], i64(1n));
  });

  test('merges into the given map, keeping what is not overwritten', () => {
    const into: GoMap = { keep: 'x', a: { b: 1, c: [1, 2] } };
    parseSet('a.c[1]=y,a.d=z', into);
    assert.deepEqual(into, { keep: 'x', a: { b: 1, c: [1, 'y'], d: 'z' } });
  });

  test('pairs before a failing one are already merged, as in helm', () => {
    const into: GoMap = {};
    assert.throws(() => parseSet('a=1,b', into), /^Error: key "b" has no value$/);
    assert.deepEqual(into, { a: i64(1n) });
  });

  test('null is kept as nil (coalescing deletes it later); --set-string keeps the text', () => {
    assert.deepEqual(parseSetValues('a=null'), { a: null });
    assert.deepEqual(parseSetValues('a=null', { stringValues: true }), { a: 'null' });
  });

  test('typedVal', () => {
    assert.equal(typedVal('TRUE'), true);
    assert.equal(typedVal('01'), '01');
    assert.deepEqual(typedVal('-01'), i64(-1n));
    assert.equal(typedVal('1.0'), '1.0');
    assert.equal(typedVal(''), '');
  });
});
