// The form's device inputs and the choices this machine or build cannot run: the machine's
// devices offered (by name, the value still the id), a device choice kept to what the machine
// has, a default choice it cannot run left unticked with the reason.
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


class InputFormDevicesTest : public QObject {
  Q_OBJECT

 private slots:
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
};

QTEST_MAIN(InputFormDevicesTest)
#include "test_input_form_devices.moc"
