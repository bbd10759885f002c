use std::path::Path;

use super::validate::is_date;
use super::*;

const MINI: &str = include_str!("../../../../tests/data/graphs/mini_company.json");

/// A small graph with every datatype and the CSV edge cases (empty lists, `[""]`, quotes,
/// commas, line breaks, nulls, a JSON int in a float column, one relation type over two keys).
const EDGE: &str = r#"{
  "schema": {"name": "g",
    "entities": [
      {"label": "Thing", "properties": {"code": "str", "count": "int", "score": "float",
        "flag": "bool", "day": "date", "tags": "list[str]", "nums": "list[int]",
        "weights": "list[float]", "days": "list[date]", "name": "str"}},
      {"label": "9Num", "properties": {}}],
    "relations": [
      {"label": "linksTo", "subj_label": "Thing", "obj_label": "Thing",
       "properties": {"note": "str", "tags": "list[str]"}},
      {"label": "linksTo", "subj_label": "Thing", "obj_label": "9Num",
       "properties": {"weight": "float"}}]},
  "entities": [
    {"eid": "Thing#1", "label": "Thing", "name": "Quote \"q\", comma; semicolon",
     "aliases": ["", "x"], "description": "line one\nline two", "provenance": [],
     "properties": {"code": "", "count": -42, "score": 3, "flag": false, "day": "0999-01-02",
       "tags": [], "nums": [1, -2, 9007199254740993], "weights": [0.1, 2, 1e-300],
       "days": ["2020-02-29", "1900-01-01"]}},
    {"eid": "Thing#2", "label": "Thing", "name": "Z\u00fcrich", "aliases": [""],
     "description": null, "provenance": ["a,b", "he said \"hi\""],
     "properties": {"code": "x\u001fy", "count": null, "flag": true, "tags": [""], "nums": [],
       "weights": null, "days": []}},
    {"eid": "9Num#1", "label": "9Num", "name": "numeric"},
    {"eid": "Thing#3", "label": "Thing", "name": "  padded  ", "aliases": ["a;b"],
     "description": "", "provenance": [""], "properties": {"score": 1e16, "day": "2024-12-31"}}],
  "relations": [
    {"rid": "e1", "label": "linksTo", "subj_id": "Thing#1", "obj_id": "Thing#2",
     "properties": {"note": "a,\"b\"\nc", "tags": []}, "provenance": []},
    {"rid": "e2", "label": "linksTo", "subj_id": "Thing#3", "obj_id": "9Num#1",
     "properties": {"weight": 170}, "provenance": ["p"]},
    {"rid": "e3", "label": "linksTo", "subj_id": "Thing#2", "obj_id": "Thing#1",
     "properties": {"note": null, "tags": ["", ""]}}]
}"#;

fn check(text: &str) -> Checked {
    validate(&parse(text.as_bytes()).unwrap())
}

#[test]
fn valid_graphs_have_no_problems() {
    let c = check(MINI);
    assert_eq!(c.problems, Problems::default());
    assert_eq!(
        c.nodes_by_label(),
        [
            ("Company".into(), 5),
            ("Country".into(), 3),
            ("Person".into(), 6)
        ]
    );
    assert_eq!(
        c.relationships_by_type()
            .iter()
            .map(|(_, n)| n)
            .sum::<usize>(),
        16
    );
    let c = check(EDGE);
    assert!(c.is_valid(), "{:?}", c.problems);
    // `name` among an entity's schema properties is the entity's name, not a property
    assert!(!c.schema.entities[0].1.iter().any(|(n, _)| n == "name"));
    assert_eq!(c.relationships_by_type(), [("linksTo".to_string(), 3)]);
    // the parallel pass agrees
    let r = check_graph(EDGE.as_bytes(), "g", true, None).unwrap();
    assert!(r.checked.is_valid());
    assert_eq!(r.checked.node_counts, c.node_counts);
    assert_eq!(r.checked.relation_counts, c.relation_counts);
    assert_eq!((r.entities, r.relations), (4, 3));
}

#[test]
fn invalid_graph_messages_in_order() {
    let mut g: serde_json::Value = serde_json::from_str(MINI).unwrap();
    let ents = g["entities"].as_array_mut().unwrap();
    let dup = ents[0].clone();
    ents.push(dup);
    ents[1]["properties"]["population"] = "many".into();
    ents[3]["properties"]["date_founded"] = "1998-09-04".into();
    ents[8]["properties"]["date_of_birth"] = "1973-02-30".into();
    let rels = g["relations"].as_array_mut().unwrap();
    rels[0]["obj_id"] = "Country#Q0".into();
    rels[1]["label"] = "locatedIn".into();
    let c = check(&g.to_string());
    assert_eq!(
        c.problems.items,
        [
            "entities[1] (Country#Q183).properties.population: 'many' is not a int",
            "entities[3] (Company#Q95).properties.date_founded: not declared for entity label \
             Company in the schema",
            "entities[8] (Person#Q4934).properties.date_of_birth: '1973-02-30' is not a date",
            "entities[14] (Country#Q30).eid: duplicate eid 'Country#Q30'",
            "relations[0] (rid 0).obj_id: no entity with eid 'Country#Q0'",
            "relations[1] (rid 1): relation 'locatedIn' from 'Company' to 'Country' is not in \
             the schema",
        ]
    );
    assert_eq!(c.problems.total, 6);
    let r = check_graph(g.to_string().as_bytes(), "g", true, None).unwrap();
    assert_eq!(r.checked.problems, c.problems);
}

#[test]
fn schema_shape_messages() {
    let c = check(
        r#"{"schema": {"name": "g", "entities": [{"label": "Bad Label", "properties": {}},
            {"label": "A", "properties": {"x": "decimal", "eid": "str", "1x": "int",
             "name": "str", "p": ["str"]}},
            {"label": "A"}],
           "relations": [{"label": "r", "subj_label": "A", "obj_label": null}, 5,
            {"label": "r", "subj_label": "A", "obj_label": "B", "properties": {"rid": "str"}},
            {"label": "r", "subj_label": "A", "obj_label": "B"}]},
           "entities": [], "relations": {}}"#,
    );
    assert_eq!(
        c.problems.items,
        [
            "relations: missing or not a list",
            "schema.entities[0].label: 'Bad Label' is not a label ([A-Za-z0-9_]+)",
            "schema.entities[1].properties.x: unknown datatype 'decimal'",
            "schema.entities[1].properties.eid: 'eid' is set by the loader itself",
            "schema.entities[1].properties: '1x' is not an identifier",
            "schema.entities[1].properties.p: unknown datatype ['str']",
            "schema.entities[2].label: duplicate entity label 'A'",
            "schema.relations[0]: label/subj_label/obj_label ('r', 'A', None) are not labels \
             ([A-Za-z0-9_]+)",
            "schema.relations[1]: not an object",
            "schema.relations[2]: 'A' or 'B' is not a schema entity label",
            "schema.relations[2].properties.rid: 'rid' is set by the loader itself",
            "schema.relations[3]: 'A' or 'B' is not a schema entity label",
            "schema.relations[3]: duplicate relation ('r', 'A', 'B')",
        ]
    );
}

#[test]
fn entity_and_relation_messages() {
    let c = check(
        r#"{"schema": {"entities": [{"label": "A", "properties": {"d": "date", "f": "float",
             "b": "bool", "l": "list[int]"}}],
           "relations": [{"label": "r", "subj_label": "A", "obj_label": "A",
             "properties": {"name": "str"}}]},
          "entities": [3, {"eid": ""}, {"eid": "a", "label": "B"},
            {"eid": "x", "label": "A", "name": 1, "aliases": "no", "provenance": [1],
             "description": ["d"], "properties": {"d": "2021-02-29", "f": true, "b": 0,
             "l": [1, 2.0]}},
            {"eid": "y", "label": "A", "name": "y", "properties": [],
             "aliases": null, "description": null},
            {"eid": "x", "label": "A", "name": "x2"}],
          "relations": [[], {"rid": 7}, {"rid": "1", "subj_id": "x", "obj_id": "a",
             "label": "r"},
            {"rid": "1", "subj_id": ["x"], "obj_id": "zz"},
            {"rid": "2", "subj_id": "x", "obj_id": "y", "label": "r",
             "properties": {"name": "n"}, "provenance": "p"}]}"#,
    );
    assert_eq!(
        c.problems.items,
        [
            "entities[0]: not an object",
            "entities[1].eid: '' is not a non-empty string",
            "entities[2] (a).label: 'B' is not a schema entity label",
            "entities[3] (x).name: 1 is not a string",
            "entities[3] (x).aliases: not a list of strings",
            "entities[3] (x).provenance: not a list of strings",
            "entities[3] (x).description: ['d'] is not a string",
            "entities[3] (x).properties.d: '2021-02-29' is not a date",
            "entities[3] (x).properties.f: True is not a float",
            "entities[3] (x).properties.b: 0 is not a bool",
            "entities[3] (x).properties.l: [1, 2.0] is not a list[int]",
            "entities[4] (y).properties: not an object",
            "entities[5] (x).eid: duplicate eid 'x'",
            "relations[0]: not an object",
            "relations[1].rid: 7 is not a non-empty string",
            "relations[2] (rid 1): relation 'r' from 'A' to '' is not in the schema",
            "relations[3] (rid 1).rid: duplicate rid '1'",
            "relations[3] (rid 1).subj_id: no entity with eid ['x']",
            "relations[3] (rid 1).obj_id: no entity with eid 'zz'",
            "relations[4] (rid 2).provenance: not a list of strings",
        ]
    );
    // `name` is no relation property (ignored in the schema, undeclared in the data)
    assert_eq!(c.problems.total, 21);
}

#[test]
fn at_most_twenty_messages_all_counted() {
    let mut text = String::from(r#"{"schema": {"entities": [], "relations": []}, "entities": ["#);
    for i in 0..50 {
        text.push_str(&format!(
            "{}{{\"eid\": \"e{i}\", \"label\": \"X\"}}",
            if i > 0 { "," } else { "" }
        ));
    }
    text.push_str(r#"], "relations": []}"#);
    let c = check(&text);
    assert_eq!(
        (c.problems.items.len(), c.problems.total),
        (MAX_PROBLEMS, 50)
    );
    assert_eq!(
        c.problems.items[19],
        "entities[19] (e19).label: 'X' is not a schema entity label"
    );
}

#[test]
fn missing_top_level_parts() {
    let c = check("{}");
    assert_eq!(
        c.problems.items,
        [
            "schema: missing or not an object",
            "entities: missing or not a list",
            "relations: missing or not a list",
        ]
    );
    assert!(matches!(
        check_graph(b"{\"schema\": {}}", "g.json", true, None),
        Err(GraphError::Read(ReadError::NotGraph { .. }))
    ));
    // a JSON error comes before the missing keys (as Python's read_graph reports them)
    let e = check_graph(b"{\"entities\": [\n {\"eid\": }]}", "g.json", true, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "g.json: not JSON: line 2 column 10: expected value"
    );
    let e = check_graph(b"{\n  \"a\": }", "g.json", false, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "g.json: not JSON: line 2 column 8: expected value"
    );
    // an item that is not JSON: the error of the whole text
    let e = check_graph(
        b"{\"schema\": {}, \"entities\": [1, tru]}",
        "g",
        false,
        None,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "g: not JSON: line 1 column 35: expected ident"
    );
    let e = parse_graph_sequential(b"{\n  \"a\": }", "g.json", false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "g.json: not JSON: line 2 column 8: expected value"
    );
}

#[test]
fn dates_are_real_days() {
    for ok in [
        "2020-02-29",
        "2000-02-29",
        "0001-01-01",
        "9999-12-31",
        "1900-04-30",
    ] {
        assert!(is_date(ok), "{ok}");
    }
    for bad in [
        "1900-02-29",
        "2021-02-29",
        "0000-01-01",
        "2020-13-01",
        "2020-00-10",
        "2020-04-31",
        "2020-1-01",
        "2020-01-01\n",
        "+020-01-01",
        "2020/01/01",
        "20200101",
        "",
    ] {
        assert!(!is_date(bad), "{bad}");
    }
}

fn read_dir(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kgbench-neo4j-csv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn write_with_threads(text: &str, dir: &Path, threads: usize, id_type: IdType) -> ImportCsv {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let r = pool
        .install(|| check_graph(text.as_bytes(), "g", true, Some((dir, id_type))))
        .unwrap();
    assert!(r.checked.is_valid(), "{:?}", r.checked.problems);
    r.csv.unwrap()
}

#[test]
fn csv_files_of_the_edge_cases() {
    let dir = temp_dir("edge");
    let out = write_with_threads(EDGE, &dir, 2, IdType::String);
    let d = dir.display();
    assert_eq!(
        out.args,
        [
            format!("--nodes=9Num={d}/nodes_0.csv"),
            format!("--nodes=Thing={d}/nodes_1.csv"),
            format!("--relationships=linksTo={d}/relationships_0.csv"),
            format!("--relationships=linksTo={d}/relationships_1.csv"),
            "--array-delimiter=U+001F".to_string(),
            "--multiline-fields=true".to_string(),
        ]
    );
    let files = read_dir(&dir);
    assert_eq!(
        files[0].1,
        "\"eid:ID\",\"name\",\"aliases:string[]\",\"description\",\"provenance:string[]\",\
         \"kgbench-empty-lists:string[]\"\n\"9Num#1\",\"numeric\",,,,\"aliases\u{1f}provenance\"\n"
    );
    let thing: Vec<&str> = files[1].1.split_inclusive('\n').collect();
    assert_eq!(
        thing[0],
        "\"eid:ID\",\"name\",\"aliases:string[]\",\"description\",\"provenance:string[]\",\
         \"code:string\",\"count:long\",\"day:date\",\"days:date[]\",\"flag:boolean\",\
         \"nums:long[]\",\"score:double\",\"tags:string[]\",\"weights:double[]\",\
         \"kgbench-empty-lists:string[]\"\n"
    );
    assert_eq!(
        thing[1..].concat(),
        "\"Thing#1\",\"Quote \"\"q\"\", comma; semicolon\",\"\u{1f}x\",\"line one\nline two\",,\
         \"\",-42,\"0999-01-02\",\"2020-02-29\u{1f}1900-01-01\",\"false\",\
         \"1\u{1f}-2\u{1f}9007199254740993\",3.0,,\"0.1\u{1f}2.0\u{1f}1e-300\",\
         \"provenance\u{1f}tags\"\n\
         \"Thing#2\",\"Zürich\",,,\"a,b\u{1f}he said \"\"hi\"\"\",\"x\u{1f}y\",,,,\"true\",,,,,\
         \"aliases=\u{1f}days\u{1f}nums\u{1f}tags=\"\n\
         \"Thing#3\",\"  padded  \",\"a;b\",\"\",,,,\"2024-12-31\",,,,1e+16,,,\"provenance=\"\n"
    );
    assert_eq!(
        files[2].1,
        "\":START_ID\",\":END_ID\",\"rid\",\"provenance:string[]\",\"weight:double\",\
         \"kgbench-empty-lists:string[]\"\n\"Thing#3\",\"9Num#1\",\"e2\",\"p\",170.0,\n"
    );
    assert_eq!(
        files[3].1,
        "\":START_ID\",\":END_ID\",\"rid\",\"provenance:string[]\",\"note:string\",\
         \"tags:string[]\",\"kgbench-empty-lists:string[]\"\n\
         \"Thing#1\",\"Thing#2\",\"e1\",,\"a,\"\"b\"\"\nc\",,\"provenance\u{1f}tags\"\n\
         \"Thing#2\",\"Thing#1\",\"e3\",,,\"\u{1f}\",\"provenance\"\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn actual_ids() {
    let dir = temp_dir("int");
    let out = write_with_threads(EDGE, &dir, 2, IdType::Actual);
    assert_eq!(out.args.last().unwrap(), "--id-type=ACTUAL");
    let files = read_dir(&dir);
    assert!(
        files[0].1.starts_with("\":ID\",\"eid\",\"name\",")
            && files[0].1.contains("\n2,\"9Num#1\",\"numeric\",")
    );
    assert!(files[1].1.contains("\n0,\"Thing#1\",") && files[1].1.contains("\n3,\"Thing#3\","));
    assert!(files[3].1.contains("\n0,1,\"e1\",") && files[3].1.contains("\n1,0,\"e3\","));
    assert!(files[2].1.ends_with("\n3,2,\"e2\",\"p\",170.0,\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn array_delimiter_avoids_list_elements() {
    let text = EDGE.replace(
        r#""aliases": ["a;b"]"#,
        r#""aliases": ["has \u001f", "and \u001e"]"#,
    );
    let dir = temp_dir("delim");
    let out = write_with_threads(&text, &dir, 1, IdType::String);
    assert!(out.args.contains(&"--array-delimiter=U+001D".to_string()));
    let thing = &read_dir(&dir)[1].1;
    assert!(thing.contains("\"Thing#1\",\"Quote \"\"q\"\", comma; semicolon\",\"\u{1d}x\""));
    assert!(thing.contains("\"has \u{1f}\u{1d}and \u{1e}\""));
    let _ = std::fs::remove_dir_all(&dir);
    let mut all = String::new();
    for d in super::csv::ARRAY_DELIMITERS {
        all.push_str(&format!("\\u{:04x}", d));
    }
    let text = EDGE.replace(r#""aliases": ["a;b"]"#, &format!(r#""aliases": ["{all}"]"#));
    let dir = temp_dir("none");
    assert!(matches!(
        check_graph(text.as_bytes(), "g", true, Some((&dir, IdType::String))),
        Err(GraphError::Csv(CsvError::NoArrayDelimiter))
    ));
    assert!(!dir.exists());
}

#[test]
fn csv_bytes_do_not_depend_on_threads() {
    // enough rows for many parallel chunks per file
    let mut text = String::from(
        r#"{"schema": {"entities": [{"label": "P", "properties": {"h": "float", "o": "list[str]"}},
        {"label": "O", "properties": {"y": "int"}}], "relations": [{"label": "k",
        "subj_label": "P", "obj_label": "O", "properties": {"d": "date"}}]}, "entities": ["#,
    );
    let n = 20_000;
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        if i % 7 == 0 {
            text.push_str(&format!(
                r#"{{"eid": "O#{i}", "label": "O", "name": "o {i}", "properties": {{"y": {i}}}}}"#
            ));
        } else {
            text.push_str(&format!(
                r#"{{"eid": "P#{i}", "label": "P", "name": "p \"{i}\"", "aliases": ["a{i}"], "properties": {{"h": {}, "o": ["x", "y{i}"]}}}}"#,
                i as f64 / 3.0
            ));
        }
    }
    text.push_str(r#"], "relations": ["#);
    for r in 0..2 * n {
        if r > 0 {
            text.push(',');
        }
        let s = (r % n) | 1;
        let s = if s % 7 == 0 { s - 2 } else { s };
        let o = (r * 7) % n / 7 * 7;
        text.push_str(&format!(
            r#"{{"rid": "{r}", "label": "k", "subj_id": "P#{s}", "obj_id": "O#{o}", "properties": {{"d": "2020-01-{:02}"}}}}"#,
            r % 28 + 1
        ));
    }
    text.push_str("]}");
    for id_type in [IdType::String, IdType::Actual] {
        let (d1, d4) = (temp_dir("t1"), temp_dir("t4"));
        let a1 = write_with_threads(&text, &d1, 1, id_type);
        let a4 = write_with_threads(&text, &d4, 4, id_type);
        let (f1, f4) = (read_dir(&d1), read_dir(&d4));
        assert_eq!(f1, f4);
        assert_eq!(a1.args.len(), a4.args.len());
        let lines: usize = f1.iter().map(|(_, t)| t.lines().count()).sum();
        assert_eq!(lines, n + 2 * n + 3);
        let _ = std::fs::remove_dir_all(&d1);
        let _ = std::fs::remove_dir_all(&d4);
    }
}
