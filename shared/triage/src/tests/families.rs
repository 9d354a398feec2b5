//! Smoke cases of the rule families of the later evaluation rounds: times said in words and
//! dates, corrections, someone else's or an animal's story, things that are not people, a
//! bleeding on a blood thinner, tablets by the packet, a caller who stops answering, and that
//! none of them hides an emergency said now.

use super::*;

#[test]
fn a_past_told_in_words_a_correction_or_someone_elses_story_is_not_now() {
    expect(
        said,
        &[
            (
                &["I had a TIA back in twenty nineteen, all resolved."],
                "none",
            ),
            (
                &["I was thinking about that stroke I had, what, maybe six years ago?"],
                "none",
            ),
            (
                &["I think I'm having a stroke, my face feels numb."],
                "stroke_signs",
            ),
            (
                &["Jag bröt handleden i morse nej vänta nu det var ju i mars."],
                "none",
            ),
            (
                &["Jag ramlade nej jag ramlade inte jag satte mig på golvet."],
                "none",
            ),
            (&["Jag har ramlat och kommer inte upp."], "fall"),
            (
                &["Jag satte en karamell i halsen och fick inte luft en stund."],
                "none",
            ),
            (&["Jag har inte fått luft på en stund."], "breathing"),
            (
                &[
                    "My brother lives in Cork.",
                    "I think he's had a stroke, maybe.",
                ],
                "none",
            ),
            (
                &["My husband is here with me.", "I think he's had a stroke."],
                "stroke_signs",
            ),
            (&["If I fell while he's away, should I ring 999?"], "none"),
            (
                &["Om nu elden skulle komma lös i natt, vad gör jag då?"],
                "none",
            ),
            (&["Det brinner i köket nu!"], "fire_or_smoke"),
        ],
    );
}

#[test]
fn things_that_collapse_slip_or_scorch_and_leaflets_about_strokes_are_not_emergencies() {
    expect(
        said,
        &[
            (
                &["Did you see the one whose showstopper collapsed?"],
                "none",
            ),
            (&["Hang on, the phone's slipping off my shoulder."], "none"),
            (&["I'll stand the iron up or I'll scorch it."], "none"),
            (
                &["My smoke alarm's got a light that doesn't blink."],
                "none",
            ),
            (&["Nine letters, collapse in the ring."], "none"),
            (&["My husband collapsed in the hall."], "unconscious"),
            (
                &["The smoke alarm is going off and there's smoke."],
                "fire_or_smoke",
            ),
        ],
    );
    expect(
        summary,
        &[
            ("Send client FAST stroke information leaflet.", "none"),
            ("Client wondering how he would get out in a fire.", "none"),
            (
                "Client reports sudden weakness on one side and slurred speech.",
                "stroke_signs",
            ),
        ],
    );
}

#[test]
fn an_animal_a_plant_or_a_dated_diary_entry_is_not_an_emergency_of_the_client() {
    expect(
        said,
        &[
            (&["The hedgehog in the garden isn't moving."], "none"),
            (&["Tomatplantorna har ramlat omkull i blåsten."], "none"),
            (&["Katten blöder från örat, han har slagits igen."], "none"),
            (&["I tripped over the dog and I can't get up."], "fall"),
            (
                &["Hunden drog omkull mig och jag blöder mycket från huvudet."],
                "bleeding",
            ),
            (
                &["Den 12 mars ramlade jag i badrummet, sen dess har jag larmet."],
                "none",
            ),
            (
                &["On the 2nd I had a nosebleed that wouldn't stop."],
                "none",
            ),
            (
                &["My appointment for the stroke clinic is on the 21st."],
                "none",
            ),
            (
                &["It's the 14th today. I've fallen and I can't get up."],
                "fall",
            ),
            (
                &["Idag den tredje, jag har så ont i bröstet."],
                "chest_pain",
            ),
        ],
    );
}

#[test]
fn a_nosebleed_on_a_blood_thinner_and_tablets_taken_by_the_packet_are_urgent() {
    expect(
        said,
        &[
            (
                &["Bit of a nosebleed, it's been going two hours, I'm on the warfarin, see."],
                "bleeding",
            ),
            (
                &["Jag har näsblod igen, och jag tar ju Eliquis."],
                "bleeding",
            ),
            (
                &["Bit of a nosebleed this morning, it stopped by itself."],
                "none",
            ),
            (
                &["I've taken every tablet in the blister pack, the whole week's worth."],
                "other_emergency",
            ),
            (
                &["Jag har tagit hela kartan med sömntabletter."],
                "self_harm",
            ),
        ],
    );
}

#[test]
fn a_storey_a_ladder_an_accidental_alarm_or_someone_taken_to_hospital_is_not_now() {
    expect(
        said,
        &[
            (&["I'm on the fourth floor with my frame."], "none"),
            (&["I can't get up a ladder at my age."], "none"),
            (&["I'm on the floor and I can't get up."], "fall"),
            (
                &[
                    "Not since I had the fall in the garden - that's two summers ago now - and broke the wrist.",
                ],
                "none",
            ),
            (
                &["The ambulance took her Tuesday with chest pains, she's in the Royal Adelaide."],
                "none",
            ),
            (
                &[
                    "Vår hund föll ihop på promenaden.",
                    "Nu blöder han från munnen.",
                ],
                "none",
            ),
            (
                &["Walked the dog.", "Terrible pain in my chest."],
                "chest_pain",
            ),
            (
                &["Det var dottern som ringde er för att jag int svarade i telefon."],
                "none",
            ),
            (
                &["Brandlarmet gick i köket för att jag brände lite bröd i brödrosten."],
                "none",
            ),
        ],
    );
    expect(
        summary,
        &[
            (
                "Son told client had fallen after accidental pendant press.",
                "none",
            ),
            (
                "Broder i Luleå har fått stroke och vårdas på sjukhus.",
                "none",
            ),
        ],
    );
}

#[test]
fn a_correction_a_pet_or_a_past_date_never_hides_an_emergency_said_now() {
    expect(
        said,
        &[
            (&["The dog knocked me down.", "Can't get up."], "fall"),
            (
                &["I have chest pain, no wait, it's really bad now."],
                "chest_pain",
            ),
            (
                &["Jag har ont i bröstet, nej vänta, det är värre nu."],
                "chest_pain",
            ),
            (
                &["Last Tuesday I fell, and today I fell again and can't get up."],
                "fall",
            ),
            (
                &["On the 3rd I had chest pain and now it's back, crushing."],
                "chest_pain",
            ),
            (
                &["I sat down on the floor to rest and now I can't get up."],
                "fall",
            ),
            (
                &["Katten har fått mat.", "Jag har så ont i bröstet."],
                "chest_pain",
            ),
        ],
    );
}

#[test]
fn a_caller_who_stops_answering_or_is_ill_at_a_relatives_house_is_urgent() {
    expect(
        dialogue,
        &[
            (
                &[
                    (
                        'c',
                        "And a bag of apples. Ooh, I've come over all hot. Hold on.",
                    ),
                    ('a', "Shirley? Are you still there?"),
                    ('a', "Shirley, can you hear me?"),
                ],
                "unconscious",
            ),
            (
                &[
                    ('c', "Det var allt för idag."),
                    ('a', "Hallå, är du kvar? Hör du mig?"),
                ],
                "unconscious",
            ),
            (
                &[
                    ('a', "Are you still there?"),
                    ('c', "Yes, sorry, I dropped the phone. All fine."),
                    ('a', "Lovely, speak next week."),
                ],
                "none",
            ),
            (
                &[
                    ('c', "Jag har tagit mina tabletter."),
                    ('a', "Säg till om du blir yr."),
                ],
                "none",
            ),
        ],
    );
    expect(
        summary,
        &[
            (
                "Stopped answering mid-call, no reply, line open, send help now.",
                "unconscious",
            ),
            (
                "Client at daughter's house in Calgary, severe breathlessness, alone.",
                "breathing",
            ),
            (
                "Brukaren är hos dottern i Malmö och har ramlat, kommer inte upp.",
                "fall",
            ),
        ],
    );
}
