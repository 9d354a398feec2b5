//! Smoke cases of the families that take a sign back (a reason given, a device or a service
//! named, an event over, a figure, a negated list) and of how a text's language, subjects and
//! questions are read; each set of rows keeps the emergency it resembles urgent.

use super::*;

#[test]
fn a_swedish_text_is_told_by_its_letters_and_a_lowercase_i_so_its_i_is_in_not_i() {
    expect(
        summary,
        &[
            ("Sveas syster i Kiruna vårdas efter hjärtinfarkt.", "none"),
            (
                "Hjälp, the kitchen is on fire, jag vet inte vad jag ska göra",
                "fire_or_smoke",
            ),
            ("Brukaren har ont i bröstet sedan i morse.", "chest_pain"),
            ("Client says her sister in Västerås fell.", "none"),
            ("I fell in Västerås and cannot get up.", "fall"),
        ],
    );
    expect(
        said,
        &[
            (
                &["Andra januari: ramlade i hallen, ambulans, höftfraktur."],
                "none",
            ),
            (
                &["Min syster i Göteborg har ramlat och brutit höften."],
                "none",
            ),
            (&["Min man har ramlat i hallen."], "fall"),
        ],
    );
}

#[test]
fn someone_else_as_the_subject_somewhere_else_is_not_the_client_but_their_own_body_is() {
    expect(
        summary,
        &[
            (
                "His brother in Dublin fell and is in hospital with a broken leg.",
                "none",
            ),
            (
                "Client's sister had a fall at the weekend and is now recovering in hospital in Leeds with a broken hip.",
                "none",
            ),
            ("Client fell in the hallway and cannot get up.", "fall"),
        ],
    );
    expect(
        said,
        &[
            (
                &[
                    "im grand but my brother in dublin fell down the stairs saturday hes in the beaumont hospital with a broken leg",
                ],
                "none",
            ),
            (
                &["My daughter saw me on the video call and said my lips have gone a bit blue."],
                "breathing",
            ),
            (
                &["My husband has collapsed in the kitchen, he won't wake up."],
                "unconscious",
            ),
        ],
    );
}

#[test]
fn a_sounding_smoke_alarm_whose_fire_the_caller_denies_is_the_device_but_smoke_seen_is_not() {
    expect(
        said,
        &[
            (
                &["Brandvarnaren piper hela tiden, men det brinner inte, jag har kollat överallt."],
                "none",
            ),
            (
                &["The smoke alarm is going off and there's no fire, I've checked."],
                "none",
            ),
            (
                &["Brandvarnaren tjuter, det brinner inte men det är rök överallt."],
                "fire_or_smoke",
            ),
            (
                &[
                    "The smoke alarm is going off, there's no fire but the kitchen is full of smoke.",
                ],
                "fire_or_smoke",
            ),
            (
                &["The smoke alarm is going off and I can smell burning."],
                "fire_or_smoke",
            ),
        ],
    );
}

#[test]
fn a_home_without_heat_is_a_concern_and_hypothermia_with_a_body_that_cannot_get_warm() {
    expect(
        said,
        &[
            (&["My radio's fine but the boiler's packed in."], "other"),
            (
                &["Elementen funkar inte, det är sexton grader inne."],
                "other",
            ),
            (
                &["The heating's been off since yesterday teatime. I can't stop shaking."],
                "other_emergency",
            ),
            (
                &["Pannan har slocknat i natt. Det är elva grader här inne och jag skakar."],
                "other_emergency",
            ),
            (
                &["The boiler's broken and I can't get warm, I'm in bed with my coat on."],
                "other_emergency",
            ),
        ],
    );
}

#[test]
fn children_told_to_say_goodbye_a_team_that_collapses_and_a_falling_shelf_are_not_emergencies() {
    expect(
        said,
        &[
            (&["Say bye to the lady, girls."], "none"),
            (&["Say goodbye, Reece."], "none"),
            (&["I just wanted to say goodbye to someone."], "self_harm"),
            (&["Say goodbye to my daughter for me."], "self_harm"),
            (
                &["Their keeper collapsed like a deckchair for the third one."],
                "none",
            ),
            (&["He collapsed like a sack of potatoes."], "unconscious"),
            (
                &["Our striker was on fire, hat-trick in twenty minutes!"],
                "none",
            ),
            (
                &["Nej, nej, det var resväskan som föll ner från hyllan."],
                "none",
            ),
            (
                &["Jag ramlade när jag skulle ta ner resväskan från hyllan."],
                "fall",
            ),
            (
                &["He's passed out at the dinner table, face down next to his plate."],
                "unconscious",
            ),
        ],
    );
}

#[test]
fn a_reason_given_for_a_sign_takes_it_back_but_a_denied_reason_does_not() {
    expect(
        said,
        &[
            (
                &["Nej då, jag flåsar bara för att jag sprang för att hinna till telefonen."],
                "none",
            ),
            (&["I'm puffed because I ran for the phone."], "none"),
            (
                &["Jag är så andfådd, jag sprang inte, jag bara satt här."],
                "breathing",
            ),
            (&["I'm breathless just walking to the toilet."], "breathing"),
            (&["I was talking into the wrong end."], "none"),
            (&["My words are all coming out wrong."], "stroke_signs"),
            (&["He was asleep and I didn't want to wake him."], "none"),
            (&["I can't wake him, he's not moving."], "unconscious"),
            (
                &["Jag tryckte visst på larmknappen i morse, det var inte meningen."],
                "none",
            ),
            (
                &["Jag tryckte på larmet för jag har ramlat och kommer inte upp."],
                "fall",
            ),
            (
                &["Now, this thing round my neck keeps beeping and I can't get it to stop."],
                "none",
            ),
            (
                &["I cut my hand on the tin and I can't get it to stop."],
                "bleeding",
            ),
            (
                &["Och smör, fast det är ju också så dyrt att man kan svimma."],
                "none",
            ),
        ],
    );
}

#[test]
fn getting_up_is_a_fall_only_when_the_caller_cannot_and_a_heart_attack_every_time_is_a_figure() {
    expect(
        said,
        &[
            (
                &["Sen dess har det värkt nere i korsryggen, särskilt när jag ska resa mig."],
                "pain",
            ),
            (&["ja kan inte resamej"], "fall"),
            (
                &["Jag får en hjärtattack varje gång jag ser kvittot."],
                "none",
            ),
            (
                &["Jag har ont i bröstet varje gång jag går i trappan."],
                "chest_pain",
            ),
        ],
    );
}

#[test]
fn a_fire_said_to_be_out_in_the_answer_to_the_agent_is_over_but_a_fall_is_not() {
    expect(
        dialogue,
        &[
            (
                &[
                    (
                        'c',
                        "Brandvarnaren tjöt här för en stund sen, brödet blev kol.",
                    ),
                    ('a', "Kommer det någon rök nu?"),
                    ('c', "Nej då, allt är släckt och jag har vädrat."),
                ],
                "none",
            ),
            (
                &[
                    ('c', "I smelled burning and got a fright."),
                    ('a', "Nothing burning in your house?"),
                    ('c', "Nothing. It was next door's bonfire. All fine now."),
                ],
                "none",
            ),
            (
                &[
                    ('c', "I've had a fall in the kitchen."),
                    ('a', "Are you all right now?"),
                    ('c', "Oh I'm fine now, don't fuss."),
                ],
                "fall",
            ),
            (
                &[
                    ('c', "There's smoke coming from the kitchen."),
                    ('a', "Is it still smoking?"),
                    ('c', "Yes, it's getting worse."),
                ],
                "fire_or_smoke",
            ),
        ],
    );
    expect(
        summary,
        &[(
            "Burnt toast set off smoke alarm this morning; cleared, no fire. Client fine.",
            "none",
        )],
    );
}

#[test]
fn an_arm_that_cannot_be_lifted_for_a_sore_shoulder_is_pain_and_a_weak_arm_is_a_stroke() {
    expect(
        said,
        &[
            (
                &["I can't lift my arm to get the cups down, it aches at night."],
                "pain",
            ),
            (
                &["Värk i axeln sedan en vecka, kan inte lyfta armen, sover dåligt"],
                "pain",
            ),
            (
                &["I can't lift my left arm and my face feels funny."],
                "stroke_signs",
            ),
            (
                &["Jag kan inte lyfta armen, den känns tung och konstig."],
                "stroke_signs",
            ),
        ],
    );
}

#[test]
fn a_modifier_phrase_around_its_trigger_applies_and_never_before_stays_an_intensity() {
    expect(
        summary,
        &[(
            "The client reported that the bannister has come loose and he is worried about falling.",
            "low_mood",
        )],
    );
    expect(
        said,
        &[
            (
                &["lovely, I've never fallen but I'd like to keep it that way"],
                "none",
            ),
            (
                &["I've never had pain like this in my chest."],
                "chest_pain",
            ),
            (&["I'm so worried, I've fallen and I can't get up."], "fall"),
        ],
    );
}

#[test]
fn someone_hurt_at_sport_or_school_is_somewhere_else_but_the_caller_there_is_not() {
    expect(
        said,
        &[
            (&["Kundens barnbarn bröt benet på fotboll."], "none"),
            (&["My grandson broke his wrist at rugby."], "none"),
            (&["I fell at the gym and can't get up."], "fall"),
        ],
    );
}

#[test]
fn a_smoke_alarm_named_as_a_device_is_no_fire_but_one_that_sounds_or_is_cried_out_is() {
    expect(
        said,
        &[
            (&["I've only got the one smoke alarm, in the hall."], "none"),
            (
                &["It says the smoke detector package is an extra four dollars fifty."],
                "none",
            ),
            (
                &["The smoke alarm is going off and I can't find where it's coming from."],
                "fire_or_smoke",
            ),
            (&["I've set the smoke alarm off."], "fire_or_smoke"),
            (&["The smoke alarm!"], "fire_or_smoke"),
        ],
    );
}

#[test]
fn a_smell_one_cannot_smell_a_slip_that_was_caught_and_help_been_and_gone_are_not_now() {
    expect(
        said,
        &[
            (&["I can't smell gas or anything like that."], "none"),
            (&["I can smell gas in the kitchen."], "other_emergency"),
            (&["I can't see for the smoke."], "fire_or_smoke"),
            (
                &["This council tax reduction form is going to give me a stroke."],
                "none",
            ),
            (
                &["I slipped and grabbed the rail but I fell anyway and I can't get up."],
                "fall",
            ),
            (
                &["Hello, I just want to let you know the paramedics have been and gone."],
                "none",
            ),
            (&["Will it make me bleed or clot or what?"], "none"),
        ],
    );
    expect(
        summary,
        &[("Client slipped but was caught, no fall, no injury.", "none")],
    );
}

#[test]
fn an_if_in_a_question_goes_on_past_and_but_not_past_a_new_clause() {
    expect(
        said,
        &[
            (
                &["And what if I run out and I'm bleeding or something?"],
                "none",
            ),
            (
                &[
                    "What would happen if the power went off in the night and I had a fall and the alarm didn't work?",
                ],
                "none",
            ),
            (
                &["What should I do if I fall, and can you send someone now, I've fallen?"],
                "fall",
            ),
            // A statement's "if" still ends at "and I'm": a guess escalates.
            (
                &["If I fall and I'm bleeding, I'll press the button."],
                "bleeding",
            ),
            (&["I've had a fall and I'm bleeding."], "bleeding"),
        ],
    );
}

#[test]
fn a_statistic_of_thousands_is_nobody_here() {
    expect(
        said,
        &[
            (
                &[
                    "Varje år skadas tusentals äldre i fallolyckor, och många fall leder till höftfraktur.",
                ],
                "none",
            ),
            (&["Thousands of older people fall every year."], "none"),
            (
                &["I've told you a thousand times, I fell and I can't get up."],
                "fall",
            ),
        ],
    );
}

#[test]
fn a_pseudo_phrase_about_one_trigger_leaves_the_if_in_its_words_to_reach_another() {
    expect(
        summary,
        &[
            (
                "Client asked who pays for an ambulance if she falls and presses her pendant.",
                "none",
            ),
            (
                "Billing to call re ambulance costs / Medicare Part B",
                "none",
            ),
            ("Hjälp att kontrollera ambulansfaktura", "none"),
            ("Client has fallen and asks for an ambulance.", "fall"),
        ],
    );
}

#[test]
fn fire_safety_a_falls_class_a_follow_up_and_a_discharge_name_no_emergency_now() {
    expect(
        said,
        &[
            (&["Fire risk assessment."], "none"),
            (&["Yes, please, before I throw it in the fire."], "none"),
            (
                &["There's a fire in the kitchen, the fire door is shut."],
                "fire_or_smoke",
            ),
            (
                &["The falls one is just the exercise class they give you, isn't it?"],
                "none",
            ),
            (
                &[
                    "Jo, det var så att efter min stroke, den jag fick 2018, så har min son skött alla räkningar åt mej.",
                ],
                "none",
            ),
            (
                &["After my stroke this morning my arm is weak."],
                "stroke_signs",
            ),
            (
                &["I had a fall after my stroke and I can't get up."],
                "fall",
            ),
        ],
    );
    expect(
        summary,
        &[
            (
                "Client had chest pain on Monday, was checked at the hospital and discharged.",
                "none",
            ),
            (
                "Evald har fått kallelse till ettårsåterbesök efter stroke 14/3.",
                "none",
            ),
        ],
    );
}

#[test]
fn a_bleeding_stopped_a_colleagues_sick_leave_and_a_hill_as_always_are_not_now() {
    expect(
        summary,
        &[
            (
                "Barbro skar sig vid potatisskalning, blödningen stoppad av dottern, plåster, inga blodförtunnande.",
                "none",
            ),
            (
                "Lennart har haft kallt element i 2 veckor, fastighetsskötaren sjukskriven efter hjärtinfarkt.",
                "none",
            ),
            (
                "Barbro skar sig och blödningen går inte att stoppa.",
                "bleeding",
            ),
        ],
    );
    expect(
        said,
        &[
            (
                &[
                    "Det var ju bara för att doktorn ville kontrollera, eftersom jag blir andfådd i uppförsbacken.",
                ],
                "none",
            ),
            (&["Jag är så andfådd, jag kan inte prata."], "breathing"),
            (
                &[
                    "Ja, och jag har aldrig varit bra på sånt.",
                    "Lite näsblod i morse.",
                ],
                "other",
            ),
        ],
    );
}

#[test]
fn devices_warnings_and_services_named_are_no_emergency_but_a_sounding_co_alarm_is() {
    expect(
        summary,
        &[
            (
                "Client's landlord refusing CO alarm - advise tenant rights",
                "none",
            ),
            ("Severe flood warning.", "none"),
            (
                "Stabil, kvarstående lätta ordletningssvårigheter sedan insjuknandet.",
                "none",
            ),
        ],
    );
    expect(
        said,
        &[
            (
                &["The CO alarm is going off and I feel dizzy."],
                "other_emergency",
            ),
            (
                &["My carbon monoxide detector is beeping."],
                "other_emergency",
            ),
            (
                &["He's here, he says next he'll test the smoke one and the pendant."],
                "none",
            ),
            (
                &["The fire brigade is here, the kitchen was on fire."],
                "fire_or_smoke",
            ),
        ],
    );
}

#[test]
fn what_is_as_usual_is_not_new_and_words_in_a_second_language_are_no_aphasia() {
    expect(
        said,
        &[
            (&["Collapsing, as per."], "none"),
            (&["I'm breathless as usual."], "none"),
            (
                &["My chest pain is worse than usual and it won't stop."],
                "chest_pain",
            ),
            (
                &["Ibland jag hittar inte svenska ord och det är lättare på finska."],
                "none",
            ),
            (&["Jag hittar inte orden, det kommer fel."], "stroke_signs"),
        ],
    );
}

#[test]
fn a_negated_list_said_with_commas_negates_every_item_but_and_alone_joins_clauses() {
    expect(
        summary,
        &[
            ("No falls, dizziness, chest pain or breathlessness.", "none"),
            (
                "Screening questions: pain, chest pain, breathing, falls all negative.",
                "none",
            ),
            (
                "Sven ringde och sa att han har ramlat i vardagsrummet och inte kommer upp.",
                "fall",
            ),
            (
                "The caller said it would be easier if she did not wake up and that she has been counting her pills.",
                "self_harm",
            ),
        ],
    );
    expect(
        said,
        &[
            (&["No pain, but I can't breathe."], "breathing"),
            (&["Not eating, chest pain and breathless."], "breathing"),
        ],
    );
}

#[test]
fn nearly_fainting_at_a_bill_a_cancelled_alarm_and_sounds_through_the_wall_are_not_here_now() {
    expect(
        said,
        &[
            (
                &[
                    "Men när ja såg notan, sjutusen åttahundra kronor, då höll ja på å svimma på fläcken.",
                ],
                "none",
            ),
            (&["Ja höll på å få en hjärtattack."], "none"),
            (
                &["I pressed the button and then I cancelled it, I'm sorry."],
                "none",
            ),
            (
                &["I pressed the button because I've fallen and can't get up."],
                "fall",
            ),
            (
                &["Ja snubbla på tröskeln när ja skulle kliva in, men chauffören tog emot mej."],
                "none",
            ),
            (
                &["Ja hörde nån som skrek 'hjälp, hjälp, han blöder' genom väggen."],
                "none",
            ),
            (&["De blev lite rök när vi blåste ut dom."], "none"),
            (&["The Great Fire of London, a thousand pieces."], "none"),
            (&["My wife says I'll bleed to death."], "none"),
        ],
    );
}

#[test]
fn aired_out_a_bleeding_stopped_and_someone_taken_away_are_over_but_a_thought_intruder_stays() {
    expect(
        summary,
        &[
            ("Röken utvädrad, ingen brand.", "none"),
            (
                "The first aider closed it with glue strips, bleeding stopped within a few minutes.",
                "none",
            ),
            (
                "Kerstin kunde inte hämta glasögon igår då butiksbiträdet svimmade och fördes bort med ambulans.",
                "none",
            ),
        ],
    );
    expect(
        said,
        &[(
            &["Jag trodde att någon var här, och nu står det en främmande man i köket!"],
            "other_emergency",
        )],
    );
}

#[test]
fn a_person_with_dementia_gone_and_the_search_for_them_are_urgent_across_a_comma() {
    expect(
        summary,
        &[
            (
                "Sture Persson (demens) försvunnen sedan 09, minus 5 ute, tunna skor.",
                "other_emergency",
            ),
            (
                "Husband with dementia went out this morning and hasn't come back, it's freezing.",
                "other_emergency",
            ),
            (
                "Hustrun rapporterar att brukaren med demens gått hemifrån kl 9.",
                "other_emergency",
            ),
            (
                "Brukaren har demens och är glömsk, annars mår han bra.",
                "confusion",
            ),
        ],
    );
}
