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
#include "input_form_fixtures.h"

using namespace stepscope;
using namespace stepscope::views;
using schema::InputField;
using schema::InputKind;
using namespace stepscope::views::input_form_fixtures;


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
