use super::*;

#[test]
fn the_embedded_axes_load_and_every_axis_has_one_clean_room() {
    let axes = Axes::parse(AXES).expect("worlds/axes.yaml loads");
    assert!(axes.axes.len() >= 5);
    for axis in &axes.axes {
        assert!(axis.value(axis.plain()).is_some_and(|v| v.plain));
        assert!(
            axis.values.iter().all(|v| !v.cite.is_empty()),
            "{}",
            axis.id
        );
    }
    assert_eq!(
        axes.kind_of("session.agent.linked-worktree"),
        Some("session")
    );
    assert_eq!(axes.kind_of("hooks.parse-hook.payload"), Some("hooks"));
    assert_eq!(axes.kind_of("core.info.schema"), None);
}

#[test]
fn a_file_with_two_clean_rooms_or_an_unknown_base_is_refused() {
    let two = "kinds: {k: [\"a*\"]}\naxes:\n  - id: x\n    about: a\n    reads: [k]\n    base: p\n    values:\n      - {id: p, plain: true, cite: c}\n      - {id: q, plain: true, cite: c}\n";
    assert!(Axes::parse(two).unwrap_err().contains("2 plain values"));
    let base = two
        .replace("base: p", "base: r")
        .replace("{id: q, plain: true", "{id: q");
    assert!(Axes::parse(&base).unwrap_err().contains("base r"));
}

#[test]
fn every_assigned_value_meets_every_kind_that_reads_it_once_units_suffice() {
    let axes = Axes::embedded();
    let mut units = BTreeMap::new();
    for kind in axes.kinds.keys() {
        let ids: Vec<String> = (0..12).map(|n| format!("{kind}-{n}")).collect();
        units.insert(kind.clone(), ids);
    }
    let worlds = assign(axes, &units);
    for axis in &axes.axes {
        for kind in &axis.reads {
            for value in axis.values_for(kind).filter(|v| v.met_by.is_none()) {
                let met = units[kind]
                    .iter()
                    .any(|u| worlds[u].value(axis) == value.id);
                assert!(met, "{}={} meets no unit of {kind}", axis.id, value.id);
            }
        }
    }
    // The first units keep the base world.
    assert_eq!(worlds["hooks-0"], World::default());
}

#[test]
fn a_world_is_read_back_from_its_names_and_made_plainer_axis_by_axis() {
    let axes = Axes::embedded();
    let world = axes.parse_world("place=subdir,utc").expect("a world");
    assert_eq!(world.named(axes), vec!["place=subdir".to_string()]);
    let clock = axes.axis("clock").expect("clock");
    assert_eq!(world.value(clock), "utc");
    let place = axes.axis("place").expect("place");
    assert_eq!(world.plainer(place).value(place), "plain");
    assert!(
        axes.parse_world("place=moon")
            .unwrap_err()
            .contains("no value moon")
    );
    assert!(axes.parse_world("nowhere").is_err());
}

#[test]
fn globs_match_as_case_ids_are_written() {
    assert!(glob("session.agent*", "session.agent"));
    assert!(glob("core.session.*", "core.session.write-then-read"));
    assert!(!glob("core.session.*", "core.sessions"));
}
