//! Tests of noise injection on small generated graphs.

use std::path::{Path, PathBuf};

use super::*;
use crate::neo4j::validate;
use crate::neo4j::value::parse;

/// A valid SimpleKG graph: `n` people and `n / 4` cities, a ring of `knows` edges, each
/// person born in a city, a few `livesIn` and `visited` edges; ages, heights, birth dates.
fn graph_text(n: usize) -> String {
    let cities = (n / 4).max(2);
    let mut ents = Vec::new();
    for i in 0..n {
        ents.push(format!(
            r#"{{"eid": "Person#Q{i}", "label": "Person", "name": "Person Number {i}", "aliases": [], "description": "a person", "properties": {{"age": {}, "height": {}, "born": "19{:02}-01-02", "nickname": "nick{i}"}}, "provenance": []}}"#,
            20 + i % 50,
            1.5 + (i % 7) as f64 / 10.0,
            i % 100
        ));
    }
    for c in 0..cities {
        ents.push(format!(
            r#"{{"eid": "City#Q{}", "label": "City", "name": "City {c}", "aliases": [], "description": null, "properties": {{"population": {}}}, "provenance": []}}"#,
            100_000 + c,
            1000 * (c + 1)
        ));
    }
    let mut rels = Vec::new();
    let mut rid = 0;
    let mut rel = |label: &str, s: String, o: String, props: &str| {
        rels.push(format!(
            r#"{{"rid": "{rid}", "label": "{label}", "subj_id": "{s}", "obj_id": "{o}", "properties": {{{props}}}, "provenance": []}}"#
        ));
        rid += 1;
    };
    for i in 0..n {
        rel(
            "knows",
            format!("Person#Q{i}"),
            format!("Person#Q{}", (i + 1) % n),
            "",
        );
        rel(
            "bornIn",
            format!("Person#Q{i}"),
            format!("City#Q{}", 100_000 + i % cities),
            "",
        );
        if i % 3 == 0 {
            rel(
                "livesIn",
                format!("Person#Q{i}"),
                format!("City#Q{}", 100_000 + (i + 1) % cities),
                r#""since": 2001"#,
            );
        }
        if i % 5 == 0 {
            rel(
                "visited",
                format!("Person#Q{i}"),
                format!("City#Q{}", 100_000 + (i + 2) % cities),
                "",
            );
        }
    }
    let schema = r#"{"name": "toy", "entities": [
        {"label": "Person", "description": null, "properties": {"age": "int", "height": "float", "born": "date", "nickname": "str"}},
        {"label": "City", "description": null, "properties": {"population": "int"}}],
      "relations": [
        {"label": "knows", "subj_label": "Person", "obj_label": "Person", "properties": {}},
        {"label": "bornIn", "subj_label": "Person", "obj_label": "City", "properties": {}},
        {"label": "livesIn", "subj_label": "Person", "obj_label": "City", "properties": {"since": "int"}},
        {"label": "visited", "subj_label": "Person", "obj_label": "City", "properties": {}}]}"#;
    format!(
        r#"{{"schema": {schema}, "entities": [{}], "relations": [{}]}}"#,
        ents.join(", "),
        rels.join(", ")
    )
}

struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!(
            "kgbench-noise-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Tmp(p)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_graph(dir: &Path, n: usize) -> PathBuf {
    let p = dir.join("in.json");
    std::fs::write(&p, graph_text(n)).unwrap();
    p
}

fn opts(profile: &str, seed: u64, opaque: bool) -> Options {
    Options {
        profile: Profile::parse(profile).unwrap(),
        seed,
        opaque_ids: opaque,
    }
}

fn run(dir: &Path, input: &Path, o: &Options, out: &str) -> (Report, String, String) {
    let out_dir = dir.join(out);
    let r = inject(input, &out_dir, o).unwrap();
    let g = std::fs::read_to_string(out_dir.join(GRAPH_FILE)).unwrap();
    let l = std::fs::read_to_string(out_dir.join(LOG_FILE)).unwrap();
    (r, g, l)
}

fn only(kind: &str, rate: f64) -> String {
    format!(r#"{{"default_profile": {{"{kind}": {rate}}}}}"#)
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let t = Tmp::new("det");
    let input = write_graph(&t.0, 400);
    let o = opts(named("default").unwrap(), 42, false);
    let (_, g1, l1) = run(&t.0, &input, &o, "a");
    let (_, g2, l2) = run(&t.0, &input, &o, "b");
    assert_eq!(g1, g2);
    assert_eq!(l1, l2);
    let (_, g3, _) = run(
        &t.0,
        &input,
        &opts(named("default").unwrap(), 7, false),
        "c",
    );
    assert_ne!(g1, g3);
}

#[test]
fn noisy_graph_is_valid_and_has_no_markers() {
    let t = Tmp::new("valid");
    let input = write_graph(&t.0, 400);
    let (r, g, l) = run(
        &t.0,
        &input,
        &opts(named("default").unwrap(), 42, false),
        "o",
    );
    for marker in ["is_noise", "noise_similarity", "original_name"] {
        assert!(!g.contains(marker), "{marker} leaked into the graph");
    }
    let v = parse(g.as_bytes()).unwrap();
    let checked = validate::validate(&v);
    assert!(checked.is_valid(), "{:?}", checked.problems);
    let log = parse(l.as_bytes()).unwrap();
    assert_eq!(
        log.get("noisy_sha256").and_then(Val::as_str),
        Some(r.noisy_sha256.as_str())
    );
    assert_eq!(r.types.len(), 6);
    assert!(r.types.iter().all(|t| t.applied > 0), "{:?}", r.types);
    assert_eq!(r.before.0, r.after.0, "nodes unchanged");
}

#[test]
fn edge_count_follows_the_table2_arithmetic() {
    let t = Tmp::new("arith");
    let input = write_graph(&t.0, 1000);
    let (r, _, _) = run(
        &t.0,
        &input,
        &opts(named("default").unwrap(), 42, false),
        "o",
    );
    let e = r.before.1;
    let deleted = r.types[0].applied;
    let x = e - deleted;
    assert_eq!(r.types[1].before.1, x);
    assert_eq!(r.types[1].applied, x / 10);
    assert_eq!(r.after.1, x + x / 10);
    assert_eq!(r.types[0].target, (e as f64 * 0.05) as usize);
}

#[test]
fn incomplete_edges_never_isolates_a_node() {
    let t = Tmp::new("inc");
    let input = write_graph(&t.0, 200);
    let (r, g, _) = run(
        &t.0,
        &input,
        &opts(&only("incomplete_edges", 0.9), 1, false),
        "o",
    );
    assert!(r.types[0].applied < r.types[0].target);
    let v = parse(g.as_bytes()).unwrap();
    let Some(Val::List(rels)) = v.get("relations") else {
        panic!()
    };
    let Some(Val::List(ents)) = v.get("entities") else {
        panic!()
    };
    let mut deg = std::collections::HashMap::new();
    for rel in rels {
        for k in ["subj_id", "obj_id"] {
            *deg.entry(rel.get(k).unwrap().as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
    }
    for e in ents {
        assert!(deg.contains_key(e.get("eid").unwrap().as_str().unwrap()));
    }
}

#[test]
fn false_edges_are_new_distinct_pairs() {
    let t = Tmp::new("false");
    let input = write_graph(&t.0, 300);
    let (r, g, _) = run(
        &t.0,
        &input,
        &opts(&only("false_edges", 0.5), 3, false),
        "o",
    );
    assert_eq!(r.types[0].applied, r.types[0].target);
    let v = parse(g.as_bytes()).unwrap();
    let Some(Val::List(rels)) = v.get("relations") else {
        panic!()
    };
    let mut pairs = std::collections::HashSet::new();
    let mut dup_pairs = 0;
    for rel in rels {
        let s = rel.get("subj_id").unwrap().as_str().unwrap();
        let o = rel.get("obj_id").unwrap().as_str().unwrap();
        assert_ne!(s, o);
        if !pairs.insert((s.to_string(), o.to_string())) {
            dup_pairs += 1;
        }
    }
    // the clean graph has no repeated pair and an added edge never repeats a pair
    assert_eq!(dup_pairs, 0);
}

#[test]
fn type_swaps_use_the_most_similar_type() {
    let t = Tmp::new("swap");
    let input = write_graph(&t.0, 200);
    let (_, _, l) = run(
        &t.0,
        &input,
        &opts(&only("relation_type_noise", 0.3), 3, false),
        "o",
    );
    let log = parse(l.as_bytes()).unwrap();
    let recs = log
        .get("detailed_records")
        .unwrap()
        .get("modified_edges")
        .unwrap();
    let Val::List(recs) = recs else { panic!() };
    assert!(!recs.is_empty());
    let names: Vec<String> = ["bornIn", "knows", "livesIn", "visited"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let table = similar::nearest_table(&names);
    for r in recs {
        let c = r.get("change").unwrap();
        let from = c.get("original_value").unwrap().as_str().unwrap();
        let to = c.get("new_value").unwrap().as_str().unwrap();
        let i = names.iter().position(|n| n == from).unwrap();
        assert_eq!(names[table[i].unwrap().0], to);
        assert_eq!(
            r.get("new_attrs").unwrap().get("label").unwrap().as_str(),
            Some(to)
        );
    }
    // nodes: the label changes, the eid is kept
    let (_, g, l) = run(
        &t.0,
        &input,
        &opts(&only("node_type_noise", 0.2), 3, false),
        "n",
    );
    let log = parse(l.as_bytes()).unwrap();
    let Val::List(recs) = log
        .get("detailed_records")
        .unwrap()
        .get("modified_nodes")
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(recs.len(), 50 * 2 / 2);
    let v = parse(g.as_bytes()).unwrap();
    assert!(validate::validate(&v).is_valid());
    for r in recs {
        let id = r.get("node_id").unwrap().as_str().unwrap();
        let new = r
            .get("new_attrs")
            .unwrap()
            .get("label")
            .unwrap()
            .as_str()
            .unwrap();
        assert!(!id.starts_with(new));
    }
}

#[test]
fn typos_and_attribute_noise_change_values_as_specified() {
    let t = Tmp::new("typo");
    let input = write_graph(&t.0, 200);
    let (r, _, l) = run(&t.0, &input, &opts(&only("name_typos", 0.5), 5, false), "o");
    assert!(r.types[0].applied > 0);
    let log = parse(l.as_bytes()).unwrap();
    let Val::List(recs) = log
        .get("detailed_records")
        .unwrap()
        .get("modified_nodes")
        .unwrap()
    else {
        panic!()
    };
    for rec in recs {
        assert_eq!(rec.get("field_changed").unwrap().as_str(), Some("name"));
        let a = rec
            .get("original_attrs")
            .unwrap()
            .get("name")
            .unwrap()
            .as_str()
            .unwrap();
        let b = rec
            .get("new_attrs")
            .unwrap()
            .get("name")
            .unwrap()
            .as_str()
            .unwrap();
        assert_ne!(a, b);
        let (la, lb) = (a.chars().count() as i64, b.chars().count() as i64);
        assert!((la - lb).abs() <= 2, "{a} -> {b}");
    }
    let (_, g, l) = run(
        &t.0,
        &input,
        &opts(&only("attribute_noise", 0.5), 5, false),
        "a",
    );
    assert!(validate::validate(&parse(g.as_bytes()).unwrap()).is_valid());
    let log = parse(l.as_bytes()).unwrap();
    let Val::List(recs) = log
        .get("detailed_records")
        .unwrap()
        .get("modified_nodes")
        .unwrap()
    else {
        panic!()
    };
    assert!(!recs.is_empty());
    for rec in recs {
        let Val::List(changes) = rec.get("change").unwrap().get("changes").unwrap() else {
            panic!()
        };
        for c in changes {
            let field = c.get("field").unwrap().as_str().unwrap();
            assert!(
                !["name", "eid", "label", "born"].contains(&field),
                "{field}"
            );
            let (a, b) = (
                c.get("original_value").unwrap(),
                c.get("new_value").unwrap(),
            );
            let num = |v: &Val<'_>| match v {
                Val::Int(i) => Some(*i as f64),
                Val::Float(f) => Some(*f),
                _ => None,
            };
            if let (Some(x), Some(y)) = (num(a), num(b)) {
                let ratio = (y / x).log10().abs();
                let rounded = field == "age" || field == "population";
                assert!((0.5..4.6).contains(&ratio) || rounded, "{x} -> {y}");
                if field == "age" || field == "population" {
                    assert!(matches!(b, Val::Int(_)), "declared int stays int");
                }
            }
        }
    }
}

#[test]
fn opaque_ids_are_consistent_between_the_graphs() {
    let t = Tmp::new("opaque");
    let input = write_graph(&t.0, 300);
    let o = opts(named("default").unwrap(), 42, true);
    let (r, g, l) = run(&t.0, &input, &o, "o");
    let clean = std::fs::read_to_string(t.0.join("o").join(CLEAN_FILE)).unwrap();
    assert!(r.clean_out.is_some());
    assert!(!g.contains("Person#") && !clean.contains("Person#") && !l.contains("Person#Q"));
    let ids = |text: &str, list: &str, key: &str| -> Vec<String> {
        let v = parse(text.as_bytes()).unwrap();
        let Some(Val::List(items)) = v.get(list) else {
            panic!()
        };
        items
            .iter()
            .map(|i| i.get(key).unwrap().as_str().unwrap().to_string())
            .collect()
    };
    let (ce, ne) = (ids(&clean, "entities", "eid"), ids(&g, "entities", "eid"));
    assert_eq!(ce, ne, "same entities, same ids, same order");
    let mut sorted = ce.clone();
    sorted.sort();
    assert_eq!(sorted, ce, "sorted by opaque id");
    let (cr, nr) = (ids(&clean, "relations", "rid"), ids(&g, "relations", "rid"));
    let shared = nr.iter().filter(|x| cr.contains(x)).count();
    assert_eq!(shared, r.types[0].before.1 - r.types[0].applied);
    // the clean graph's hash is the one in the log
    let log = parse(l.as_bytes()).unwrap();
    let want = output::hex(&Sha256::digest(clean.as_bytes()));
    assert_eq!(
        log.get("clean_sha256").and_then(Val::as_str),
        Some(want.as_str())
    );
    // same noise with and without opaque ids
    let (r2, _, _) = run(
        &t.0,
        &input,
        &opts(named("default").unwrap(), 42, false),
        "p",
    );
    let applied = |r: &Report| r.types.iter().map(|t| t.applied).collect::<Vec<_>>();
    assert_eq!(applied(&r), applied(&r2));
    // a later run without opaque ids removes the stale clean graph
    let (_, _, _) = run(
        &t.0,
        &input,
        &opts(named("default").unwrap(), 42, false),
        "o",
    );
    assert!(!t.0.join("o").join(CLEAN_FILE).exists());
}

#[test]
fn bad_graphs_are_errors() {
    let t = Tmp::new("bad");
    let o = opts(named("default").unwrap(), 1, false);
    for (text, want) in [
        (r#"{"schema": {}, "entities": []}"#, "not a SimpleKG graph"),
        (
            r#"{"schema": {}, "entities": [{"eid": 1}], "relations": []}"#,
            "eid must be a string",
        ),
        (
            r#"{"schema": {}, "entities": [{"eid": "a", "label": "X"}], "relations": [{"rid": "0", "label": "r", "subj_id": "a", "obj_id": "b"}]}"#,
            "obj_id \"b\" is not the eid",
        ),
        (
            r#"{"schema": {}, "entities": [{"eid": "a", "label": "X"}, {"eid": "a", "label": "X"}], "relations": []}"#,
            "repeated eid",
        ),
        ("{", "not JSON"),
    ] {
        let p = t.0.join("g.json");
        std::fs::write(&p, text).unwrap();
        let e = inject(&p, &t.0.join("o"), &o).unwrap_err().to_string();
        assert!(e.contains(want), "{text}: {e}");
        assert!(!t.0.join("o").join(LOG_FILE).exists());
    }
}

#[test]
fn copied_items_equal_rewritten_items() {
    // the same graph as compact text (every item rewritten from its tree) and as kgbench's
    // indented text (unchanged items copied): the same noisy graph, byte for byte
    let t = Tmp::new("canon");
    let compact = write_graph(&t.0, 300);
    let bytes = std::fs::read(&compact).unwrap();
    let v = parse(&bytes).unwrap();
    let mut pretty = Vec::new();
    json::write_val(&mut pretty, &v, Some(0));
    let pretty_path = t.0.join("pretty.json");
    std::fs::write(&pretty_path, &pretty).unwrap();
    let o = opts(named("default").unwrap(), 11, false);
    let (_, g1, _) = run(&t.0, &compact, &o, "a");
    let (_, g2, _) = run(&t.0, &pretty_path, &o, "b");
    assert_eq!(g1, g2);
    // and the clean graph written with opaque ids is the input with its ids replaced
    let o = opts(&only("false_edges", 0.0), 11, true);
    let (_, g3, _) = run(&t.0, &pretty_path, &o, "c");
    let clean = std::fs::read_to_string(t.0.join("c").join(CLEAN_FILE)).unwrap();
    assert_eq!(g3, clean);
}
