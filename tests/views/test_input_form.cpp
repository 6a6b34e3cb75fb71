// The form built from an input schema: a field per visible input, checked as it is typed by
// the schema's own rules (the expected messages come from InputValues, not from the form),
// values() and set_values() both ways for every kind, a together-check's error, Run's lock,
// and a layout that fits a 1280x720 window beside a table.
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "core/config_error.h"
#include "schema/input_values.h"
#include "widgets/input_form.h"

using namespace stepscope;
using namespace stepscope::views;
using schema::InputField;
using schema::InputKind;

namespace {

// About the size of an experiment's: 21 visible inputs in 3 groups, and a hidden one.
schema::InputSchema demo_schema() {
  std::vector<InputField> f;
  f.push_back({"impl", "Implementations", InputKind::choice, "naive, sdpa or flash", "naive,sdpa,flash", true, "run",
               "I"});
  f.back().choices = {"naive", "sdpa", "flash"};
  f.back().default_note = "naive,flash, and sdpa where available";
  f.push_back({"batch", "Batch", InputKind::integer, "batch size", "8", false, "run", "N"});
  f.push_back({"seq", "Sequence lengths", InputKind::integer, "sequence lengths, one run each", "256,1024", true, "run",
               "N"});
  f.back().max_integer = 65536;
  f.push_back({"precision", "Precisions", InputKind::choice, "fp32, bf16 or fp16 inputs", "fp32", true, "run", "P"});
  f.back().choices = {"fp32", "bf16", "fp16"};
  f.back().noun = "precision";
  f.push_back({"causal", "Causal", InputKind::flag, "top-left causal mask", "", false, "run", ""});
  f.push_back({"warmup", "Warm-up passes", InputKind::integer, "warm-up passes, not measured", "5", false, "run", "N"});
  f.back().min_integer = 0;
  f.push_back({"steps", "Measured passes", InputKind::integer, "measured passes", "100", false, "run", "N"});
  f.push_back({"rounds", "Rounds", InputKind::integer,
               "split the passes into N rounds, the implementations taking\nturns round by round", "", false, "run",
               "N"});
  f.push_back({"lr", "Learning rate", InputKind::number, "AdamW's learning rate", "0.001", false, "run", "X"});
  f.push_back({"device", "Device", InputKind::text, "cpu, cuda or cuda:N", "cpu", false, "run", "D"});
  f.back().check = [](const std::string& t) {
    if (t != "cpu" && t != "cuda" && t.rfind("cuda:", 0) != 0) throw ConfigError("unknown device '" + t + "'");
  };
  f.push_back({"rank", "Rank", InputKind::flag, "a worker's own flag", "", false, "run", ""});
  f.back().hidden = true;
  f.push_back({"model", "Model", InputKind::choice, "a preset", "tiny", false, "model", "NAME"});
  f.back().choices = {"tiny", "mini", "small", "medium"};
  f.push_back({"context", "Context", InputKind::integer, "tokens per sequence", "256", false, "model", "N"});
  f.push_back({"d-model", "Width", InputKind::integer, "model width", "", false, "model", "N"});
  f.push_back({"layers", "Layers", InputKind::integer, "layers", "", false, "model", "N"});
  f.push_back({"bucket", "Bucket sizes", InputKind::size, "gradient bucket sizes", "1MiB,25MiB", true, "model", "S"});
  f.push_back({"backend", "Backend", InputKind::choice, "gloo (CPU tensors) or nccl (GPUs)", "", false, "model", "B"});
  f.back().choices = {"gloo", "nccl"};
  f.back().default_note = "gloo, nccl with --device cuda";
  f.push_back({"timeout", "Timeout", InputKind::integer, "seconds the ranks may take to meet", "60", false, "model",
               "S"});
  f.back().unit = "s";
  f.push_back({"csv", "CSV file", InputKind::path, "the rows as CSV", "", false, "output", "F"});
  f.push_back({"trace", "Trace file", InputKind::path, "a Perfetto trace", "", false, "output", "F"});
  f.push_back({"profile-memory", "Profile memory", InputKind::flag, "record each rank's allocations", "", false,
               "output", ""});
  f.push_back({"note", "Note", InputKind::text, "a note stored with the run", "", false, "output", "T"});
  return {f};
}

const schema::InputSchema& demo() {
  static const schema::InputSchema schema = demo_schema();
  return schema;
}

// What the schema says about `text` for `key`: the message InputValues::set throws, or "".
QString schema_error(const std::string& key, const std::string& text) {
  schema::InputValues scratch(demo());
  try {
    scratch.set(key, text);
  } catch (const ConfigError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QLineEdit* line(const InputForm& form, const std::string& key) { return qobject_cast<QLineEdit*>(form.field(key)); }

QCheckBox* choice_box(const InputForm& form, const std::string& key, const std::string& choice) {
  return form.field(key)->findChild<QCheckBox*>(QString::fromStdString(key + ":" + choice));
}

bool framed(const InputForm& form, const std::string& key) { return form.field(key)->property("invalid").toBool(); }

// The ConfigError values() throws, or one with the field "(none)".
ConfigError values_error(const InputForm& form) {
  try {
    form.values();
  } catch (const ConfigError& e) {
    return e;
  }
  return ConfigError("no error", "(none)");
}

void type_into(QLineEdit* field, const QString& text) {
  field->clear();
  QTest::keyClicks(field, text);
}

}  // namespace

class InputFormTest : public QObject {
  Q_OBJECT

 private slots:
  void everyVisibleInputHasAFieldAndTheHiddenOneNone() {
    InputForm form(demo());
    for (const InputField& input : demo().fields) {
      QWidget* field = form.field(input.key);
      if (input.hidden) {
        QVERIFY2(!field, input.key.c_str());
        QVERIFY(!form.findChild<QWidget*>(QString::fromStdString(input.key)));
        continue;
      }
      QVERIFY2(field, input.key.c_str());
      QCOMPARE(field->objectName(), QString::fromStdString(input.key));
    }
    QVERIFY(!form.field("no-such-input"));
    // Each kind its widget.
    QVERIFY(qobject_cast<QCheckBox*>(form.field("causal")));
    QCOMPARE(qobject_cast<QCheckBox*>(form.field("causal"))->text(), QStringLiteral("Causal"));
    auto* model = qobject_cast<QComboBox*>(form.field("model"));
    QVERIFY(model && !model->isEditable());
    QCOMPARE(model->count(), 4);
    QCOMPARE(model->currentText(), QStringLiteral("tiny"));
    auto* device = qobject_cast<QComboBox*>(form.field("device"));
    QVERIFY(device && device->isEditable());
    QCOMPARE(device->currentText(), QStringLiteral("cpu"));
    QCOMPARE(form.field("precision")->findChildren<QCheckBox*>().size(), 3);
    QVERIFY(choice_box(form, "precision", "fp32")->isChecked());
    QVERIFY(!choice_box(form, "precision", "bf16")->isChecked());
    for (const char* key : {"batch", "seq", "rounds", "lr", "context", "bucket", "timeout", "csv", "note"}) {
      QVERIFY2(line(form, key), key);
    }
    // The default as the placeholder (or the note saying it), the help as the tooltip on one line.
    QCOMPARE(line(form, "seq")->placeholderText(), QStringLiteral("256,1024"));
    QCOMPARE(line(form, "rounds")->toolTip(),
             QStringLiteral("split the passes into N rounds, the implementations taking turns round by round"));
    auto* backend = qobject_cast<QComboBox*>(form.field("backend"));
    QVERIFY(backend->currentText().contains(QStringLiteral("gloo, nccl with --device cuda")));
    // The unit beside the label.
    bool timeout_label = false;
    for (const QLabel* label : form.findChildren<QLabel*>()) timeout_label |= label->text() == QStringLiteral("Timeout (s)");
    QVERIFY(timeout_label);
  }

  void anUntouchedFormGivesNothing() {
    InputForm form(demo());
    const auto values = form.values();
    QVERIFY(values.given_values().empty());
    QCOMPARE(values.text("seq"), std::string("256,1024"));
    QCOMPARE(form.error_text(), QString());
    for (const InputField& input : demo().fields) {
      if (!input.hidden) QVERIFY2(!framed(form, input.key), input.key.c_str());
    }
  }

  void typingAListKeepsItsItems() {
    InputForm form(demo());
    QSignalSpy changed(&form, &InputForm::changed);
    type_into(line(form, "seq"), QStringLiteral("16, 32"));
    QVERIFY(changed.count() > 0);
    const auto values = form.values();
    QVERIFY(values.given("seq"));
    QCOMPARE(values.text("seq"), std::string("16,32"));
    QCOMPARE(values.integers("seq"), (std::vector<int64_t>{16, 32}));
    QVERIFY(!framed(form, "seq"));
  }

  void aBadItemFramesItsFieldAsTyped() {
    InputForm form(demo());
    QLineEdit* seq = line(form, "seq");
    const QString help = seq->toolTip();
    type_into(seq, QStringLiteral("x"));
    const QString message = schema_error("seq", "x");
    QVERIFY(!message.isEmpty());
    QVERIFY(framed(form, "seq"));
    QCOMPARE(seq->toolTip(), message);
    QCOMPARE(form.error_text(), QStringLiteral("Sequence lengths: ") + message);
    const ConfigError error = values_error(form);
    QCOMPARE(error.field(), std::string("seq"));
    QCOMPARE(QString::fromStdString(error.what()), message);
    // Another reason replaces the first: past the schema's maximum.
    type_into(seq, QStringLiteral("256, 100000"));
    QCOMPARE(seq->toolTip(), schema_error("seq", "256, 100000"));
    QVERIFY(seq->toolTip().contains(QStringLiteral("65536")));
    // Fixed: the frame and the error line go, the help comes back.
    type_into(seq, QStringLiteral("64"));
    QVERIFY(!framed(form, "seq"));
    QCOMPARE(seq->toolTip(), help);
    QCOMPARE(form.error_text(), QString());
    QCOMPARE(form.values().text("seq"), std::string("64"));
    // Other kinds, by their own rules.
    type_into(line(form, "lr"), QStringLiteral("-1"));
    QCOMPARE(line(form, "lr")->toolTip(), schema_error("lr", "-1"));
    type_into(line(form, "bucket"), QStringLiteral("1MiB, 3 apples"));
    QCOMPARE(line(form, "bucket")->toolTip(), schema_error("bucket", "1MiB, 3 apples"));
    QCOMPARE(values_error(form).field(), std::string("lr"));  // the first in the schema's order
  }

  void tickingAChoiceListAddsItInTheSchemasOrder() {
    InputForm form(demo());
    choice_box(form, "precision", "bf16")->setChecked(true);
    QVERIFY(form.values().given("precision"));
    QCOMPARE(form.values().text("precision"), std::string("fp32,bf16"));
    choice_box(form, "precision", "fp32")->setChecked(false);
    choice_box(form, "precision", "fp32")->setChecked(true);
    QCOMPARE(form.values().text("precision"), std::string("fp32,bf16"));  // the schema's order, not the clicks'
    choice_box(form, "precision", "fp32")->setChecked(false);
    choice_box(form, "precision", "bf16")->setChecked(false);
    const ConfigError error = values_error(form);
    QCOMPARE(error.field(), std::string("precision"));
    QVERIFY(framed(form, "precision"));
    QCOMPARE(form.error_text(), QStringLiteral("Precisions: choose at least one"));
    // Back at the default: not given.
    choice_box(form, "precision", "fp32")->setChecked(true);
    QVERIFY(!framed(form, "precision"));
    QVERIFY(!form.values().given("precision"));
  }

  void setValuesShowsEveryKindAndValuesReadsThemBack() {
    schema::InputValues v(demo());
    v.set("impl", "naive,flash");
    v.set("batch", "4");
    v.set("seq", "16,32");
    v.set("precision", "bf16,fp16");
    v.set_flag("causal", true);
    v.set("rounds", "3");
    v.set("lr", "0.5");
    v.set("device", "cuda:0");
    v.set("model", "mini");
    v.set("bucket", "4MiB,1GB");
    v.set("backend", "nccl");
    v.set("timeout", "30");
    v.set("csv", "/tmp/out.csv");
    v.set_flag("profile-memory", true);
    v.set("note", "a b");
    InputForm form(demo());
    QSignalSpy changed(&form, &InputForm::changed);
    form.set_values(v);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(form.values().given_values(), v.given_values());
    QVERIFY(form.values() == v);
    QCOMPARE(qobject_cast<QComboBox*>(form.field("backend"))->currentText(), QStringLiteral("nccl"));
    QVERIFY(!choice_box(form, "impl", "sdpa")->isChecked());
    // The rest back to empty or the default.
    form.set_values(schema::InputValues(demo()));
    QVERIFY(form.values().given_values().empty());
    QCOMPARE(line(form, "batch")->text(), QString());
    QVERIFY(choice_box(form, "impl", "sdpa")->isChecked());
    QCOMPARE(qobject_cast<QComboBox*>(form.field("device"))->currentText(), QStringLiteral("cpu"));
  }

  void theDeviceOffersTheMachinesDevices() {
    InputForm form(demo());
    auto* device = qobject_cast<QComboBox*>(form.field("device"));
    form.set_device_choices({QStringLiteral("cpu"), QStringLiteral("cuda:0"), QStringLiteral("cuda:1")});
    QCOMPARE(device->count(), 3);
    QCOMPARE(device->currentText(), QStringLiteral("cpu"));
    QVERIFY(!form.values().given("device"));
    device->setCurrentIndex(2);
    QCOMPARE(form.values().text("device"), std::string("cuda:1"));
    device->setEditText(QStringLiteral("tpu"));
    QVERIFY(framed(form, "device"));
    QCOMPARE(device->toolTip(), schema_error("device", "tpu"));
    QCOMPARE(values_error(form).field(), std::string("device"));
    // With their names: the list reads "id - name", the value is still the id, typed or chosen.
    device->setEditText(QStringLiteral("cuda:1"));
    form.set_device_choices({QStringLiteral("cpu"), QStringLiteral("cuda:0"), QStringLiteral("cuda:1")},
                            {QStringLiteral("CPU (16 threads)"), QStringLiteral("NVIDIA H100"), QStringLiteral("NVIDIA H100")});
    QCOMPARE(device->itemText(1), QStringLiteral("cuda:0 - NVIDIA H100"));
    QCOMPARE(device->currentText(), QStringLiteral("cuda:1 - NVIDIA H100"));  // what was chosen stays
    QCOMPARE(form.values().text("device"), std::string("cuda:1"));
    device->setCurrentIndex(0);
    QVERIFY(!form.values().given("device"));
    device->setEditText(QStringLiteral("cuda:0"));
    QCOMPARE(form.values().text("device"), std::string("cuda:0"));
    schema::InputValues v(demo());
    v.set("device", "cuda:1");
    form.set_values(v);
    QCOMPARE(device->currentText(), QStringLiteral("cuda:1 - NVIDIA H100"));
    QCOMPARE(form.values(), v);
  }

  void aChoiceThisMachineCannotRunIsNoDefault() {
    InputForm form(demo());
    QVERIFY(choice_box(form, "impl", "sdpa")->isChecked());
    form.set_unavailable_choice("impl", "sdpa", QStringLiteral("sdpa needs LibTorch 2.0"));
    QVERIFY(!choice_box(form, "impl", "sdpa")->isChecked());
    QCOMPARE(choice_box(form, "impl", "sdpa")->toolTip(), QStringLiteral("sdpa needs LibTorch 2.0"));
    QVERIFY(choice_box(form, "impl", "sdpa")->isEnabled());
    // naive and flash ticked is the default here: not given, as the command line's default.
    QVERIFY(!form.values().given("impl"));
    QVERIFY(!framed(form, "impl"));
    choice_box(form, "impl", "sdpa")->setChecked(true);
    QCOMPARE(form.values().text("impl"), std::string("naive,sdpa,flash"));
    QVERIFY(form.values().given("impl"));
    form.set_values(schema::InputValues(demo()));
    QVERIFY(!choice_box(form, "impl", "sdpa")->isChecked());
    QVERIFY(choice_box(form, "impl", "naive")->isChecked() && choice_box(form, "impl", "flash")->isChecked());
    // Asked for all the same (a run kept elsewhere), it is shown.
    schema::InputValues v(demo());
    v.set("impl", "sdpa");
    form.set_values(v);
    QVERIFY(choice_box(form, "impl", "sdpa")->isChecked());
    QVERIFY(!choice_box(form, "impl", "naive")->isChecked());
    QCOMPARE(form.values(), v);
    // The boxes of the default here, given (a run that asked for them): a value given, both ways.
    v.set("impl", "naive,flash");
    form.set_values(v);
    QVERIFY(!choice_box(form, "impl", "sdpa")->isChecked());
    QCOMPARE(form.values(), v);
    QVERIFY(form.values().given("impl"));
    // Set while the field holds a given value: that value stays.
    InputForm given(demo());
    schema::InputValues all(demo());
    all.set("impl", "naive,sdpa,flash");
    given.set_values(all);
    given.set_unavailable_choice("impl", "sdpa", QStringLiteral("why"));
    QVERIFY(choice_box(given, "impl", "sdpa")->isChecked());
    QCOMPARE(given.values(), all);
  }

  void aDeviceChoiceOffersWhatTheMachineHas() {
    // A job of ranks' device: cpu or cuda (each rank its own GPU), a choice.
    schema::InputSchema ranks;
    ranks.fields.push_back({"device", "Device", InputKind::choice, "cpu or cuda", "cpu", false, "launch", "D"});
    ranks.fields.back().choices = {"cpu", "cuda"};
    ranks.fields.push_back({"backend", "Backend", InputKind::choice, "gloo or nccl", "", false, "launch", "B"});
    ranks.fields.back().choices = {"gloo", "nccl"};
    InputForm form(ranks);
    auto* device = qobject_cast<QComboBox*>(form.field("device"));
    auto* backend = qobject_cast<QComboBox*>(form.field("backend"));
    QVERIFY(device && !device->isEditable());
    form.set_device_choices({QStringLiteral("cpu")});
    QCOMPARE(device->count(), 1);
    QCOMPARE(device->itemText(0), QStringLiteral("cpu"));
    QCOMPARE(backend->count(), 3);  // not a device: its choices stay
    form.set_device_choices({QStringLiteral("cpu"), QStringLiteral("cuda:0"), QStringLiteral("cuda:1")});
    QCOMPARE(device->count(), 2);
    device->setCurrentIndex(1);
    QCOMPARE(form.values().text("device"), std::string("cuda"));
    // What it shows stays, on a machine without it (a reopened run's).
    form.set_device_choices({QStringLiteral("cpu")});
    QCOMPARE(device->currentText(), QStringLiteral("cuda"));
    QCOMPARE(form.values().text("device"), std::string("cuda"));
    schema::InputValues cpu(ranks);
    form.set_values(cpu);
    QCOMPARE(device->currentText(), QStringLiteral("cpu"));
    QVERIFY(form.values().given_values().empty());
  }

  void aListItemTypedTwiceIsTakenOnce() {
    InputForm form(demo());
    type_into(line(form, "seq"), QStringLiteral("256, 1024,256"));
    QCOMPARE(form.values().text("seq"), std::string("256,1024"));
    type_into(line(form, "bucket"), QStringLiteral("1MiB,1MiB"));
    QCOMPARE(form.values().sizes("bucket"), (std::vector<int64_t>{1 << 20}));
    QVERIFY(form.error_text().isEmpty());
  }

  void leftOutInputsGetNoField() {
    InputForm form(demo(), nullptr, {"trace", "csv"});
    QVERIFY(!form.field("trace"));
    QVERIFY(!form.field("csv"));
    QVERIFY(form.field("note"));
    schema::InputValues v(demo());
    v.set("trace", "run.json");
    form.set_values(v);
    QVERIFY(!form.values().given("trace"));
  }

  void runningDisablesEveryField() {
    InputForm form(demo());
    form.set_running(true);
    for (const InputField& input : demo().fields) {
      if (!input.hidden) QVERIFY2(!form.field(input.key)->isEnabled(), input.key.c_str());
    }
    QVERIFY(!choice_box(form, "precision", "bf16")->isEnabled());
    form.set_running(false);
    for (const InputField& input : demo().fields) {
      if (!input.hidden) QVERIFY2(form.field(input.key)->isEnabled(), input.key.c_str());
    }
  }

  void aTogetherCheckFramesTheFieldItNames() {
    InputForm form(demo());
    const QString help = form.field("batch")->toolTip();
    form.show_error("batch", QStringLiteral("too big"));
    QVERIFY(framed(form, "batch"));
    QCOMPARE(form.field("batch")->toolTip(), QStringLiteral("too big"));
    QCOMPARE(form.error_text(), QStringLiteral("too big"));
    QVERIFY(!framed(form, "seq"));
    // A field's own error goes first; the together-check's stays until it is cleared.
    type_into(line(form, "seq"), QStringLiteral("x"));
    QCOMPARE(form.error_text(), QStringLiteral("Sequence lengths: ") + schema_error("seq", "x"));
    QVERIFY(framed(form, "batch"));
    type_into(line(form, "seq"), QStringLiteral("8"));
    QCOMPARE(form.error_text(), QStringLiteral("too big"));
    form.show_error("", QString());
    QVERIFY(!framed(form, "batch"));
    QCOMPARE(form.field("batch")->toolTip(), help);
    QCOMPARE(form.error_text(), QString());
    // No field to frame: the message alone.
    form.show_error("", QStringLiteral("the sweep has no case"));
    QCOMPARE(form.error_text(), QStringLiteral("the sweep has no case"));
  }

  void itFitsBesideATableIn1280x720() {
    QWidget window;
    auto* row = new QHBoxLayout(&window);
    auto* form = new InputForm(demo());
    auto* table = new QTableWidget(30, 6);
    row->addWidget(form, 0, Qt::AlignTop);
    row->addWidget(table, 1);
    const QSize least = form->minimumSizeHint();
    qInfo("minimumSizeHint %dx%d, sizeHint %dx%d", least.width(), least.height(), form->sizeHint().width(),
          form->sizeHint().height());
    QVERIFY(least.width() <= 640);
    QVERIFY(least.height() <= 680);  // at its narrowest it still fits the window's height
    window.resize(1280, 720);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.size(), QSize(1280, 720));
    const auto check_whole = [&] {
      qInfo("form %dx%d at %d,%d; table %d wide", form->width(), form->height(), form->x(), form->y(), table->width());
      QVERIFY(table->width() >= 500);
      // Every field whole inside the window and its box, no label cut short.
      for (const InputField& input : demo().fields) {
        if (input.hidden) continue;
        QWidget* field = form->field(input.key);
        const QRect at(field->mapTo(&window, QPoint(0, 0)), field->size());
        QVERIFY2(window.rect().contains(at), input.key.c_str());
        const QWidget* box = field->parentWidget()->parentWidget();
        QVERIFY2(box->rect().contains(QRect(field->mapTo(box, QPoint(0, 0)), field->size())), input.key.c_str());
        QVERIFY2(field->width() >= field->minimumSizeHint().width(), input.key.c_str());
      }
      for (const QLabel* label : form->findChildren<QLabel*>()) {
        if (label->isVisible()) QVERIFY2(label->width() >= label->sizeHint().width(), qPrintable(label->text()));
      }
    };
    check_whole();
    if (QTest::currentTestFailed()) return;
    const QString png = qEnvironmentVariable("STEPSCOPE_INPUT_FORM_PNG");
    if (!png.isEmpty()) QVERIFY(window.grab().save(png));
    // At its narrowest: more rows, nothing cut off.
    form->setFixedWidth(least.width());
    window.layout()->activate();
    QCOMPARE(form->width(), least.width());
    check_whole();
  }
};

QTEST_MAIN(InputFormTest)
#include "test_input_form.moc"
